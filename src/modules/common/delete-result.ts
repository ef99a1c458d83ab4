import { builder } from "../../graphql/builder.js";

export const DeleteResult = builder.objectRef<{ id: string }>("DeleteResult").implement({
  description: "The id of the entity that was deleted",
  fields: (t) => ({ id: t.exposeID("id") }),
});
