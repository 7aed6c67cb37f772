/** The SDK version, sent in the `User-Agent`. Kept equal to package.json by test/version.test.ts. */
export const VERSION = '0.1.0';
