import { GraphQLID } from "graphql";
import { schema } from "../schema/index.js";
const t = schema.getType("ID") as any;
console.log(t === GraphQLID, (() => { try { return t.parseValue("a\u0000b"); } catch (e) { return "threw " + (e as Error).message; } })());
const f = schema.getMutationType()!.getFields().deleteAccountGrouping.args[0].type as any;
console.log(f.ofType === t, f.ofType === GraphQLID);
