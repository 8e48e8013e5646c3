import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

const fixtures = path.resolve(import.meta.dirname, "../fixtures");

/**
 * What xmllint (Debian's libxml2-utils) says of `xml` against a grammar in tests/fixtures: "" when it validates,
 * else its complaints. `atom.rng` is RFC 4287's RELAX NG grammar; `sitemap.xsd` and `siteindex.xsd` the sitemap
 * protocol's schemas.
 */
export function xmlProblems(xml: string | Buffer, grammar: "atom.rng" | "sitemap.xsd" | "siteindex.xsd"): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "candor-xml-"));
  const file = path.join(dir, "document.xml");
  fs.writeFileSync(file, xml);
  const option = grammar.endsWith(".rng") ? "--relaxng" : "--schema";
  try {
    execFileSync("xmllint", ["--noout", option, path.join(fixtures, grammar), file], { stdio: "pipe" });
    return "";
  } catch (error) {
    return String((error as { stderr?: Buffer }).stderr ?? error);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
