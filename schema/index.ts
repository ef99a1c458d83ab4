// Importing a module registers its types and fields on the builder; this file only assembles them.
import { builder } from "../src/graphql/builder.js";
import "../src/modules/common/scalars.js";
import "../src/modules/common/roots.js";
import "../src/modules/common/entity.js";
import "../src/modules/events/event.schema.js";
import "../src/modules/users/user.schema.js";
import "../src/modules/api-tokens/api-token.schema.js";
import "../src/modules/organizations/organization.schema.js";
import "../src/modules/engagements/engagement.schema.js";
import "../src/modules/async-results/async-result.schema.js";
import "../src/modules/analysis-types/analysis-type.schema.js";
import "../src/modules/libraries/library.schema.js";
import "../src/modules/analysis-type-configurations/configuration.schema.js";
import "../src/modules/risk-ranges/risk-range.schema.js";
import "../src/modules/reporting-periods/reporting-period.schema.js";
import "../src/modules/analyses/analysis.schema.js";
import "../src/modules/account-groupings/account-grouping.schema.js";
import "../src/modules/engagement-account-groupings/engagement-account-grouping.schema.js";
import "../src/modules/account-mappings/account-mapping.schema.js";

export const schema = builder.toSchema({ sortSchema: true });
