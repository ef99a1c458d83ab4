/**
 * The types of the Json columns of account groupings and their groups, library and engagement
 * copies alike. `prisma/schema/account-groupings.prisma` names each one (`/// [Name]`) and
 * prisma-json-types-generator writes them into the generated client: reads and writes are typed.
 */
import type { GroupError } from "./grouping-tree.js";
import type { LocalizedText as Localized } from "./localized-text.js";

declare global {
  namespace PrismaJson {
    /** `{lang}` text (wire reference 7): language code to text. */
    type LocalizedText = Localized;
    type AccountGroupErrors = GroupError[];
  }
}
