import * as z from 'zod/mini';
import { responseObject } from './response-objects.js';

/** A wallet balance. Its fields are not documented: all pass through. */
export interface Wallet {
  [key: string]: unknown;
}

/** Schema of {@link Wallet}: any object. */
export const WalletSchema: z.ZodMiniType<Wallet> = responseObject({});

/**
 * `GET /api/v1/wallets` answers `{ data: [...] }`; a bare array is accepted too. The envelope is
 * unwrapped first, then the array checked: a union would say the same at 0.4 KB gzip more in the
 * client bundle, and its issues would not point at the bad wallet.
 */
export const WalletListSchema: z.ZodMiniType<Wallet[]> = z.pipe(
  z.transform((value: unknown) =>
    typeof value === 'object' && value !== null && !Array.isArray(value) && 'data' in value ? value.data : value,
  ),
  z.array(WalletSchema),
) as unknown as z.ZodMiniType<Wallet[]>;
