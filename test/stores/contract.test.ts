/** The store contract (test/helpers/store-contract.ts) against `memoryStore()`. */
import { memoryStore } from 'payments-sdk/stores';
import { describeStoreContract } from '../helpers/store-contract.js';

describeStoreContract('memoryStore', async () => ({ store: memoryStore(), cleanup: async () => {} }), {
  notShared: 'memoryStore is the memory of one process, which no second instance shares',
});
