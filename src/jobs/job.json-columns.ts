/**
 * The type of `async_result.payload`, named in `prisma/schema/jobs.prisma` and written into the
 * generated client by prisma-json-types-generator. The column holds any job's payload: the runtime
 * hands it to the definition named by `job_name`, whose `JobDefinition<P>` gives its shape.
 */
import type { AsyncStatus as AsyncStatusValue } from "./define.js";

declare global {
  namespace PrismaJson {
    /** Also data_source_import_task.status. */
    type AsyncStatus = AsyncStatusValue;
    type JobPayload = { [key: string]: unknown };
  }
}

