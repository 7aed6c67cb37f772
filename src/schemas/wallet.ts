import * as z from 'zod/mini';
import { isRecord } from '../internal/is-record.js';
import type { Proof, Same } from './primitives.js';

/** A wallet balance. The service does not document its fields: all are kept, typed `unknown`. */
export interface Wallet {
  [key: string]: unknown;
}

const walletObject = z.looseObject({});

// biome-ignore lint/correctness/noUnusedVariables: a compile-time proof, checked by tsc: Wallet is what the schema gives.
type WalletMatchesSchema = Proof<Same<Wallet, z.output<typeof walletObject>>>;

/** Schema of {@link Wallet}: any object. */
export const WalletSchema: z.ZodMiniType<Wallet> = walletObject;

/**
 * The wallets of a list once unwrapped from `{ data }`: what the client checks `wallets.list()` with.
 * The client unwraps the envelope itself, so its bundle needs no zod pipe or transform.
 * @internal Not exported from `payments-sdk/schemas`: {@link WalletListSchema} is.
 */
export const walletArray: z.ZodMiniType<Wallet[]> = z.array(WalletSchema);

/**
 * `GET /api/v1/wallets` answers `{ data: [...] }`; a bare array is accepted too. The envelope is
 * unwrapped first, then the array checked: a union would say the same with more of zod, and its
 * issues would not point at the bad wallet.
 */
export const WalletListSchema: z.ZodMiniType<Wallet[]> = /* @__PURE__ */ z.pipe(
  // Both calls marked pure: the client imports this module for `walletArray` alone, and without the
  // marks a bundler would keep this unused pipe, and zod's pipe and transform with it.
  /* @__PURE__ */ z.transform((value: unknown) => (isRecord(value) && 'data' in value ? value.data : value)),
  walletArray,
);
