import { lateStore } from '../testing/late-store.ts';
import { storeConformanceSuite, storeExpirySuite } from '../testing/store-conformance.ts';
import { createMemoryStore } from './memory-store.ts';

storeConformanceSuite('memory', async () => createMemoryStore());
// The expiry scenarios hold on a loaded machine: here every call answers 250 ms late.
storeExpirySuite('memory, every call 250 ms late', async () => lateStore(createMemoryStore(), 250));
