import type { App } from "../../app-types.js";
import { RateLimitedError } from "../../core/errors.js";
import { PgWindowCounter, type WindowCounter } from "../../core/rate-limit.js";

const HOUR_SECONDS = 3600;
const counters = new WeakMap<App, WindowCounter>();

/**
 * The counter must be shared by every process of the deployment (design note 5): Redis when the
 * deployment has it, otherwise the database all processes already share. Never the in-memory one.
 */
function counterFor(app: App): WindowCounter {
  let counter = counters.get(app);
  if (!counter) {
    counter = app.redis ? app.counters : new PgWindowCounter(app.pool);
    counters.set(app, counter);
  }
  return counter;
}

/**
 * Spec 8: create user, update user and resend activation share one budget of
 * MODIFY_USERS_HOURLY_LIMIT calls per hour for the whole tenant, whichever token calls. The call
 * past the budget gets 429 with X-User-Hour-Limit-Remaining = seconds until the window resets.
 */
export async function consumeModifyUsersCall(app: App): Promise<void> {
  const limit = app.config.modifyUsersHourlyLimit;
  const hit = await counterFor(app).hit(`modify-users:${app.config.tenantId}`, HOUR_SECONDS);
  if (hit.count > limit) {
    throw new RateLimitedError(`The tenant may create, update or resend activation to users at most ${limit} times per hour; the limit resets in ${hit.resetSeconds} seconds`, hit.resetSeconds);
  }
}
