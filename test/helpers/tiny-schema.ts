import { GraphQLID, GraphQLInputObjectType, GraphQLInt, GraphQLInterfaceType, GraphQLList, GraphQLNonNull, GraphQLObjectType, GraphQLSchema, GraphQLString, GraphQLUnionType } from "graphql";

/**
 * A small hand-built schema shaped like ours (an Entity interface, entities linking to entities, a
 * union read model, Pothos-style `authScopes` on root fields) for unit tests of the REST compiler,
 * without building the real schema.
 */
export function tinySchema(): GraphQLSchema {
  const Entity = new GraphQLInterfaceType({ name: "Entity", fields: { id: { type: new GraphQLNonNull(GraphQLID) }, version: { type: GraphQLInt } } });
  const UserInfo = new GraphQLObjectType({ name: "UserInfo", fields: { userId: { type: GraphQLString }, userName: { type: GraphQLString } } });
  const Organization: GraphQLObjectType = new GraphQLObjectType({
    name: "Organization",
    interfaces: [Entity],
    fields: () => ({
      id: { type: new GraphQLNonNull(GraphQLID) },
      version: { type: GraphQLInt },
      name: { type: GraphQLString },
      createdUserInfo: { type: UserInfo },
      engagements: { type: new GraphQLList(Engagement) },
      engagementCount: { type: GraphQLInt, args: { status: { type: new GraphQLNonNull(GraphQLString) } } },
    }),
  });
  const Engagement: GraphQLObjectType = new GraphQLObjectType({
    name: "Engagement",
    interfaces: [Entity],
    fields: () => ({
      id: { type: new GraphQLNonNull(GraphQLID) },
      version: { type: GraphQLInt },
      name: { type: GraphQLString },
      organizationId: { type: GraphQLID },
      organization: { type: Organization },
      period: { type: new GraphQLObjectType({ name: "Period", fields: { startDate: { type: GraphQLString }, endDate: { type: GraphQLString } } }) },
    }),
  });
  const Directory = new GraphQLObjectType({ name: "Directory", interfaces: [Entity], fields: { id: { type: new GraphQLNonNull(GraphQLID) }, version: { type: GraphQLInt }, name: { type: GraphQLString } } });
  const File = new GraphQLObjectType({ name: "File", interfaces: [Entity], fields: { id: { type: new GraphQLNonNull(GraphQLID) }, version: { type: GraphQLInt }, name: { type: GraphQLString }, size: { type: GraphQLInt } } });
  const Entry = new GraphQLUnionType({ name: "Entry", types: [Directory, File] });
  const PeriodInput = new GraphQLInputObjectType({ name: "PeriodInput", fields: { startDate: { type: new GraphQLNonNull(GraphQLString) }, endDate: { type: GraphQLString } } });
  const EngagementInput = new GraphQLInputObjectType({
    name: "EngagementInput",
    fields: { name: { type: new GraphQLNonNull(GraphQLString) }, organizationId: { type: GraphQLID }, period: { type: PeriodInput }, tags: { type: new GraphQLList(new GraphQLNonNull(GraphQLString)) } },
  });
  const EntryInput = new GraphQLInputObjectType({ name: "EntryInput", fields: { name: { type: GraphQLString }, version: { type: new GraphQLNonNull(GraphQLInt) } } });
  const scopes = (permission: string | string[]) => ({ pothosOptions: { authScopes: { permission } } });
  const Query = new GraphQLObjectType({
    name: "Query",
    fields: {
      engagement: { type: Engagement, args: { id: { type: new GraphQLNonNull(GraphQLID) } }, extensions: scopes("api.engagements.read") },
      entry: { type: Entry, args: { id: { type: new GraphQLNonNull(GraphQLID) } }, extensions: scopes(["api.file-manager.read", "api.files.read"]) },
      open: { type: GraphQLString },
    },
  });
  const Mutation = new GraphQLObjectType({
    name: "Mutation",
    fields: {
      createEngagement: { type: Engagement, args: { input: { type: new GraphQLNonNull(EngagementInput) } }, extensions: scopes("api.engagements.write") },
      updateEntry: { type: Entry, args: { id: { type: new GraphQLNonNull(GraphQLID) }, input: { type: new GraphQLNonNull(EntryInput) } }, extensions: scopes("api.file-manager.write") },
    },
  });
  return new GraphQLSchema({ query: Query, mutation: Mutation, types: [Directory, File] });
}
