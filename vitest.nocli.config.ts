import { mergeConfig } from 'vitest/config';
import base from './vitest.config.ts';
const config = mergeConfig(base, {});
config.test.globalSetup = ['test/helpers/redis.ts', 'test/helpers/postgres.ts'];
export default config;
