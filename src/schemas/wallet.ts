import * as z from 'zod/mini';

/** A wallet balance (service-api.md §2.5, §4.9). Its fields are not documented: all pass through. */
export interface Wallet {
  [key: string]: unknown;
}

/** Schema of {@link Wallet}: any object. */
export const WalletSchema: z.ZodMiniType<Wallet> = z.looseObject({});

/** `GET /api/v1/wallets` answers `{ data: [...] }`; a bare array is accepted too. */
export const WalletListSchema: z.ZodMiniType<Wallet[]> = z.pipe(
  z.union([z.looseObject({ data: z.array(WalletSchema) }), z.array(WalletSchema)]),
  z.transform((value): Wallet[] => (Array.isArray(value) ? value : (value.data as Wallet[]))),
) as unknown as z.ZodMiniType<Wallet[]>;
