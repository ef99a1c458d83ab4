import {
  getNamedType,
  isAbstractType,
  isInterfaceType,
  isObjectType,
  isRequiredArgument,
  type GraphQLNamedType,
  type GraphQLObjectType,
  type GraphQLSchema,
} from "graphql";

const MAX_DEPTH = 8;

function isEntity(type: GraphQLNamedType): boolean {
  if (type.name === "Entity") return true;
  return (isObjectType(type) || isInterfaceType(type)) && type.getInterfaces().some((i) => i.name === "Entity");
}

/**
 * Builds the selection set a REST route returns: every field of the type, recursively, as the wire
 * read model. Links from one entity to another entity are left out (REST returns ids, not graphs),
 * as are fields that need arguments and fields a schema marks GraphQL-only (`extensions: { rest: false }`:
 * figures a screen wants beside an entity that are not part of its wire read model).
 */
export function selectionFor(schema: GraphQLSchema, type: GraphQLNamedType, depth = 0): string {
  if (!isObjectType(type) && !isInterfaceType(type) && !isAbstractType(type)) return "";
  if (depth > MAX_DEPTH) throw new Error(`REST selection for ${type.name} is nested deeper than ${MAX_DEPTH} levels`);
  if (isAbstractType(type)) {
    const fragments = schema.getPossibleTypes(type).map((possible) => `... on ${possible.name} ${selectionFor(schema, possible, depth)}`);
    return `{ __typename ${fragments.join(" ")} }`;
  }
  const object = type as GraphQLObjectType;
  const parentIsEntity = isEntity(object);
  const parts: string[] = [];
  for (const field of Object.values(object.getFields())) {
    if (field.args.some(isRequiredArgument) || field.extensions?.rest === false) continue;
    const named = getNamedType(field.type);
    if (parentIsEntity && isEntity(named)) continue;
    parts.push(`${field.name}${selectionFor(schema, named, depth + 1)}`);
  }
  return `{ ${parts.join(" ")} }`;
}
