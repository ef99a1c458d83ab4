import "./scalars.js";
import "./long.js";
import "./roots.js";
import "./entity.js";
import { defineFamily } from "../family.js";

export const commonFamily = defineFamily({
  name: "common",
});
