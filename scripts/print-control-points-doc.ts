// Prints the per-control-point tables of docs/control-points.md from the engine's catalogue
// (src/engine/control-points): `node --import tsx scripts/print-control-points-doc.ts`. The
// sections around them are written by hand.
import { familyControlPoints, FLAG_THRESHOLD_SETTING, resultControlPoints, type ControlPointDefinition, type ControlPointFamily } from "../src/engine/index.js";

const fmt = (value: unknown): string => {
  if (value === null) return "unset";
  if (Array.isArray(value)) return value.length > 6 ? `${value.slice(0, 6).map((v) => (typeof v === "object" ? JSON.stringify(v) : String(v))).join(", ")}, … (${value.length})` : value.map((v) => (typeof v === "object" ? JSON.stringify(v) : String(v))).join(", ");
  return String(value);
};

function table(points: readonly ControlPointDefinition[], weights: Set<string>): string {
  const rows = points.map((p) => {
    const settings = Object.entries(p.settings).map(([key, s]) => `\`${key}\` = ${fmt(s.default)}: ${s.description}`).join("<br>");
    const weight = weights.has(p.name) ? String(p.defaultWeight) : "not weighed";
    const requires = p.requires.length > 0 ? ` Needs mapped ${p.requires.join(", ")}.` : "";
    return `| \`${p.name}\`${p.platformName ? "" : " (ours)"} | ${p.displayName} | ${p.kind} | ${p.level} | ${weight} | ${p.summary}${requires} | ${settings || "none"} |`;
  });
  return ["| Symbolic name | Display name | Kind | Level | Default weight | Fires when | Settings (default: meaning) |", "|---|---|---|---|---|---|---|", ...rows].join("\n");
}

const section = (title: string, family: ControlPointFamily, only?: (p: ControlPointDefinition) => boolean) => {
  const weighted = new Set(familyControlPoints(family).map((p) => p.name));
  const points = resultControlPoints(family).filter(only ?? (() => true));
  return `### ${title}\n\n${table(points, weighted)}\n`;
};

const gl = new Set(resultControlPoints("GL").map((p) => p.name));
process.stdout.write(
  [
    section("General ledger (the 36, in export column order)", "GL"),
    section("Not-for-profit additions (after the 36)", "GL_NFP_FUND", (p) => !gl.has(p.name)),
    section("Accounts payable", "AP"),
    section("Accounts receivable", "AR"),
    `Every family also has \`general.flagThreshold\` = ${FLAG_THRESHOLD_SETTING.default}: ${FLAG_THRESHOLD_SETTING.description}.\n`,
  ].join("\n"),
);
