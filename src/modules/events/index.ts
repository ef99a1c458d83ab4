import "./event.schema.js";
import { defineFamily } from "../family.js";

export const eventsFamily = defineFamily({
  name: "events",
});
