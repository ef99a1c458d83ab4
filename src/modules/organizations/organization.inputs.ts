import { builder } from "../../graphql/builder.js";
import type { InputOf } from "../common/crud-fields.js";

export const CreateOrganizationInput = builder.inputType("CreateOrganizationInput", {
  fields: (t) => ({
    name: t.string({ required: true }),
    externalClientCode: t.string(),
    managerUserIds: t.idList(),
  }),
});

export const UpdateOrganizationInput = builder.inputType("UpdateOrganizationInput", {
  fields: (t) => ({
    name: t.string(),
    externalClientCode: t.string(),
    managerUserIds: t.idList(),
    version: t.int({ required: true }),
  }),
});
export type CreateOrganizationInput = InputOf<typeof CreateOrganizationInput>;
export type UpdateOrganizationInput = InputOf<typeof UpdateOrganizationInput>;
