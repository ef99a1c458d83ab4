export {
  defineJob,
  JobError,
  JobRetry,
  ASYNC_RESULT_TYPES,
  ASYNC_ENTITY_TYPES,
  ASYNC_STATUSES,
  wireEnumValue,
  type AsyncResultType,
  type AsyncEntityType,
  type AsyncStatus,
  type JobContext,
  type JobDefinition,
  type JobStarter,
  type FailureContext,
  type RetryPolicy,
} from "./define.js";
export { startJob, startJobOn, jobStarter, type StartJobSpec } from "./start.js";
export { JobRuntime, JOB_COMPLETED_EVENT, JOB_FAILED_EVENT, JOB_PROGRESS_EVENT } from "./runtime.js";
export { defineEventHandler, type EventHandlerDefinition } from "./event-handler.js";
export { defineScheduledTask, Scheduler, type ScheduledTaskDefinition } from "./scheduler.js";
