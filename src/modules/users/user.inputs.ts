import { builder } from "../../graphql/builder.js";
import type { InputOf } from "../common/crud-fields.js";
import { ROLES } from "./user.columns.js";

export const Role = builder.enumType("Role", { values: ROLES });

export const CreateUserInput = builder.inputType("CreateUserInput", {
  description: "An invitation: the user receives an activation email with a link valid for 7 days",
  fields: (t) => ({
    email: t.string({ required: true }),
    role: t.field({ type: Role, required: true }),
  }),
});
export type CreateUserInput = InputOf<typeof CreateUserInput>;

export const UpdateUserInput = builder.inputType("UpdateUserInput", {
  fields: (t) => ({
    enabled: t.boolean({ description: "Enabling a disabled user sends a new activation email and un-validates the user" }),
    role: t.field({ type: Role }),
    version: t.int({ required: true }),
  }),
});
export type UpdateUserInput = InputOf<typeof UpdateUserInput>;
