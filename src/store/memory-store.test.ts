import { storeConformanceSuite } from '../testing/store-conformance.ts';
import { createMemoryStore } from './memory-store.ts';

storeConformanceSuite('memory', async () => createMemoryStore());
