import { expect, it } from "vitest";
import { describeEachEngine } from "#tests/support/test-database.ts";
import { countRows } from "#tests/support/test-fixtures.ts";
import { addCompany } from "./contributions.server.ts";
import { company, companyReview, expectRefusal, someone } from "#tests/support/test-contributions.ts";

describeEachEngine("lookalike companies, second round", (database) => {
  // What a security review still added as new companies (4 duplicates accepted before, checked), and their kin:
  // punctuation and spacing, the Greek final sigma, and a website given with a path or on a subdomain.
  it.each([
    ["a trailing full stop", "Acme Inc", "acme.com", "Acme Inc.", "acme.com"],
    ["other punctuation and spacing", "Acme Inc", "acme.com", "A.C.M.E., Inc", "acme.com"],
    ["a symbol", "Acme", "acme.com", "Acme®", "acme.com"],
    ["a Greek final sigma", "ΑΘΗΝΑΣ Α.Ε.", "athinas.gr", "Αθηνασ ΑΕ", "athinas.gr"],
    ["a Greek final sigma, the other way", "Αθηνασ", "athinas.gr", "Αθηνας", "athinas.gr"],
    ["a website with a path", "Acme", "acme.com", "Acme", "https://acme.com/about-us"],
    ["a website on a subdomain", "Acme", "acme.com", "Acme", "https://careers.eu.acme.com/jobs?x=1"],
    ["a website on a subdomain of a country's suffix", "Acme", "acme.co.uk", "ACME", "shop.acme.co.uk"],
  ])("refuses a name or website with %s as the same company", async (_, name, website, lookalike, site) => {
    const { db } = database();
    await addCompany(db, someone, company({ name, website }), companyReview());

    const error = await expectRefusal(
      addCompany(db, someone, company({ name: lookalike, website: site }), companyReview()),
      "company-exists",
    );
    expect(error.message).toBe("This company already exists.");
    expect(await countRows(db, "companies")).toBe(1);
  });

  it("keeps apart what is another company: another name, another site, another site on a hosting platform", async () => {
    const { db } = database();
    await addCompany(db, someone, company({ name: "Acme", website: "acme.com" }), companyReview());
    await addCompany(db, someone, company({ name: "Acme Foods", website: "acme.com" }), companyReview());
    await addCompany(db, someone, company({ name: "Acme", website: "acme.de" }), companyReview());
    await addCompany(db, someone, company({ name: "Acme", website: "acme.github.io" }), companyReview());
    await addCompany(db, someone, company({ name: "Acme", website: "other-acme.github.io" }), companyReview());
    expect(await countRows(db, "companies")).toBe(5);
  });
});
