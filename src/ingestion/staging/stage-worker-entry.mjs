// Entry of the staging worker when running from TypeScript sources: worker threads do not inherit
// the main thread's tsx loader, so the worker registers it before loading its module.
import { register } from "tsx/esm/api";

register();
await import("./stage-worker.ts");
