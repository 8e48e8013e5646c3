/**
 * Which folder of `app/` may import which (docs/architecture.md, layers): each layer imports only the layers below
 * it, so the ground floor stays free of requests and databases and the client bundle free of server code.
 *
 *   lib         nothing else of app/
 *   db          lib
 *   domain      db, lib
 *   http        domain, db, lib
 *   components  lib (client-safe modules only); types alone from domain and the root route
 *   routes      anything
 *
 * Each layer becomes one flat-config block for ESLint's `no-restricted-imports`. Tests beside the code are exempt:
 * they reach for `tests/support`.
 */
export type Layer = { folder: string; allowed: string[]; typesFrom?: string[]; clientSafe?: boolean };

export const layers: Layer[] = [
  { folder: "lib", allowed: [] },
  { folder: "db", allowed: ["lib"] },
  { folder: "domain", allowed: ["db", "lib"] },
  { folder: "http", allowed: ["domain", "db", "lib"] },
  { folder: "components", allowed: ["lib"], typesFrom: ["domain/", "root.tsx"], clientSafe: true },
];

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
const names = (paths: string[]) => paths.map((path) => `app/${path}`).join(", ");

/** The options of `no-restricted-imports` for one layer. */
export function layerRule({ folder, allowed, typesFrom = [], clientSafe = false }: Layer) {
  const exempt = [...[folder, ...allowed].map((name) => `${name}/`), ...typesFrom].map(escape).join("|");
  const patterns: object[] = [
    {
      regex: `^#app/(?!(${exempt}))`,
      message: `app/${folder} imports only ${allowed.length ? names(allowed) : "from its own folder"} (docs/architecture.md, layers).`,
    },
    { regex: "^#(server|tests)/", message: `app/${folder} does not import server/ or tests/.` },
    { regex: "^\\.\\./([^/]+/|\\.\\./)", message: "Import across the folders of app/ by #app/..." },
  ];
  if (typesFrom.length) {
    patterns.push({
      regex: `^#app/(${typesFrom.map(escape).join("|")})`,
      allowTypeImports: true,
      message: `app/${folder} takes only types from ${names(typesFrom)}.`,
    });
  }
  if (clientSafe) {
    patterns.push({
      regex: "\\.server(\\.|$)",
      allowTypeImports: true,
      message: `app/${folder} goes to the browser: no server module, except for its types.`,
    });
  }
  return ["error", { patterns }] as const;
}

export const layerConfigs = layers.map((layer) => ({
  files: [`app/${layer.folder}/**/*.{ts,tsx}`],
  ignores: ["**/*.test.ts", "**/*.test.tsx"],
  rules: { "no-restricted-imports": layerRule(layer) },
}));
