import { builder } from "../../graphql/builder.js";

builder.queryType({ description: "Reads. Every field needs a bearer token with the permission it names." });
builder.mutationType({ description: "Writes. The REST routes under /api/v1 run these same fields." });
builder.subscriptionType({ description: "Live events over graphql-ws on /api/graphql." });
