import { builder } from "../../graphql/builder.js";
import type { InputOf } from "../common/crud-fields.js";
import { FILE_MANAGER_TYPES } from "./file-manager.columns.js";

export const FileManagerType = builder.enumType("FileManagerType", { values: FILE_MANAGER_TYPES });

export const CreateFileManagerDirectoryInput = builder.inputType("CreateFileManagerDirectoryInput", {
  fields: (t) => ({
    engagementId: t.id({ required: true }),
    name: t.string({ required: true }),
    parentFileManagerEntityId: t.id({ description: "Directory to create it in; absent for the engagement's top level" }),
  }),
});
export type CreateFileManagerDirectoryInput = InputOf<typeof CreateFileManagerDirectoryInput>;

export const FileManagerPlacementInput = builder.inputType("FileManagerPlacementInput", {
  description: "Where a new file goes and what it is called (name without extension; defaults to the uploaded file's)",
  fields: (t) => ({
    engagementId: t.id({ required: true }),
    name: t.string(),
    parentFileManagerEntityId: t.id(),
  }),
});
export type FileManagerPlacementInput = InputOf<typeof FileManagerPlacementInput>;

export const CreateFileFromChunkedFileInput = builder.inputType("CreateFileFromChunkedFileInput", {
  fields: (t) => ({
    chunkedFileId: t.id({ required: true }),
    engagementId: t.id({ required: true }),
    name: t.string(),
    parentFileManagerEntityId: t.id(),
  }),
});

export const UpdateFileManagerEntityInput = builder.inputType("UpdateFileManagerEntityInput", {
  fields: (t) => ({
    name: t.string(),
    parentFileManagerEntityId: t.id({ description: "Move into this directory (same engagement)" }),
    type: t.field({ type: FileManagerType, description: "Must be the entity's current type" }),
    version: t.int({ required: true }),
  }),
});
export type UpdateFileManagerEntityInput = InputOf<typeof UpdateFileManagerEntityInput>;
