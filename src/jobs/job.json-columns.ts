/**
 * The type of `async_result.payload`, named in `prisma/schema/jobs.prisma` and written into the
 * generated client by prisma-json-types-generator. The column holds any job's payload: the runtime
 * hands it to the definition named by `job_name`, whose `JobDefinition<P>` gives its shape.
 */
declare global {
  namespace PrismaJson {
    type JobPayload = { [key: string]: unknown };
  }
}

export {};
