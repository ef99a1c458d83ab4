import { ValidationError } from "../../core/errors.js";
import { assertContent, createAudit, findEntity, queryEntities, type PageArgs } from "../../entity/index.js";
import { inTransaction } from "../../events/outbox.js";
import type { RequestContext } from "../../graphql/context.js";
import { jobStarter, startJob } from "../../jobs/index.js";
import { checkPlacement } from "../file-manager/file-manager.service.js";
import { gdpduUnpackJobColumns } from "./gdpdu.columns.js";
import type { GdpduUnpackInput } from "./gdpdu.inputs.js";
import { gdpduUnpackJob } from "./gdpdu-unpack.job.js";

export function getGdpduUnpackJob(ctx: RequestContext, id: string) {
  return findEntity(ctx.app, "gdpduUnpackJob", "GdpduUnpackJob", id);
}

export function queryGdpduUnpackJobs(ctx: RequestContext, args: PageArgs) {
  return queryEntities(ctx.app, { model: "gdpduUnpackJob", columns: gdpduUnpackJobColumns }, args);
}

/**
 * POST /file-manager/transform/gdpdu-unpack: the archive must be a file of the engagement; the
 * unpack job record exists at once (the async result's target) and the job does the rest.
 */
export async function startGdpduUnpack(ctx: RequestContext, input: GdpduUnpackInput) {
  assertContent(input);
  await checkPlacement(ctx, input.engagementId, input.parentFileManagerEntityId);
  const archive = await ctx.prisma.fileManagerEntity.findUnique({ where: { id: input.fileManagerFileId } });
  if (!archive || archive.type !== "FILE") throw new ValidationError(`fileManagerFileId ${input.fileManagerFileId} refers to no file`, { identifier: "fileManagerFileId", values: [input.fileManagerFileId] });
  if (archive.engagementId !== input.engagementId) throw new ValidationError(`File ${archive.id} belongs to another engagement`, { identifier: "fileManagerFileId", values: [archive.id] });
  if (!archive.ready) throw new ValidationError(`File ${archive.id} is still being produced`, { identifier: "fileManagerFileId", values: [archive.id], problemType: "INVALID_STATE" });
  const startedBy = jobStarter(ctx);
  const directoryName = input.name ?? archive.name;
  return inTransaction(ctx.app, async (tx) => {
    const job = await tx.gdpduUnpackJob.create({
      data: {
        ...createAudit(startedBy),
        engagementId: input.engagementId,
        fileManagerFileId: archive.id,
        parentFileManagerEntityId: input.parentFileManagerEntityId ?? null,
        name: directoryName,
        status: "RUNNING",
      },
    });
    return startJob(tx, {
      job: gdpduUnpackJob,
      payload: { unpackJobId: job.id, archiveFileId: archive.id, engagementId: input.engagementId, parentFileManagerEntityId: input.parentFileManagerEntityId ?? null, directoryName },
      entityType: "GDPDU_UNPACK_JOB",
      entityId: job.id,
      startedBy,
    });
  });
}
