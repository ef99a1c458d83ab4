import { builder } from "../../graphql/builder.js";
import type { InputOf } from "../common/crud-fields.js";

export const GdpduUnpackInput = builder.inputType("GdpduUnpackInput", {
  fields: (t) => ({
    engagementId: t.id({ required: true }),
    fileManagerFileId: t.id({ required: true, description: "The zip archive (index.xml plus table files)" }),
    parentFileManagerEntityId: t.id({ description: "Where the new directory goes" }),
    name: t.string({ description: "Name of the new directory; default: the archive's name" }),
  }),
});
export type GdpduUnpackInput = InputOf<typeof GdpduUnpackInput>;
