/**
 * The import rules of the code base (docs/architecture.md, "Layers"). `test/architecture.test.ts`
 * runs them; `npx depcruise --config .dependency-cruiser.cjs src rest schema subscriptions` shows
 * the same report by hand.
 *
 * Layers, lowest first. A file may import from its own layer and the layers below it, never from
 * a layer above; and no import cycle, type-only imports included.
 */
const LAYERS = [
  { name: "foundation", path: "^src/(core|generated|tabular)/|^src/config\\.ts$" },
  { name: "infrastructure", path: "^src/(query-language|auth|db|events|mail|storage)/" },
  { name: "app-types", path: "^src/app-types\\.ts$" },
  { name: "entity", path: "^src/entity/" },
  { name: "runtime", path: "^src/(jobs|graphql|requests)/" },
  { name: "engines", path: "^src/(ingestion|engine)/" },
  { name: "modules", path: "^src/modules/" },
  { name: "composition", path: "^(schema|rest|subscriptions|web)/|^src/(server|app-services|main)\\.ts$" },
];

// The one leaf of the composition layer that families import: the route entry types and helpers.
const ROUTE_DEFINITIONS = "^rest/route-helpers\\.ts$";

const upward = LAYERS.flatMap((layer, index) => {
  const above = LAYERS.slice(index + 1).map((upper) => upper.path);
  if (above.length === 0) return [];
  return [
    {
      name: `no-upward-from-${layer.name}`,
      comment: `${layer.name} may not import from a layer above it (${LAYERS.slice(index + 1).map((l) => l.name).join(", ")})`,
      severity: "error",
      from: { path: layer.path },
      to: { path: above.join("|"), pathNot: ROUTE_DEFINITIONS },
    },
  ];
});

module.exports = {
  forbidden: [
    { name: "no-circular", comment: "import cycles, type-only imports included", severity: "error", from: {}, to: { circular: true } },
    ...upward,
  ],
  options: {
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    exclude: { path: "(^|/)node_modules/|^src/generated/|\\.test\\.ts$" },
    doNotFollow: { path: "node_modules" },
  },
};
