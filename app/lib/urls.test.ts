import { describe, expect, it } from "vitest";
import { normalizeLinkedInAddress, normalizeWebAddress, websiteKey } from "./urls.ts";

describe("normalizeWebAddress", () => {
  it("puts https:// in front of an address without a scheme", () => {
    expect(normalizeWebAddress("acme.com")).toBe("https://acme.com/");
    expect(normalizeWebAddress("www.acme.com/jobs")).toBe("https://www.acme.com/jobs");
  });

  it("keeps http and https addresses", () => {
    expect(normalizeWebAddress("http://acme.com")).toBe("http://acme.com/");
    expect(normalizeWebAddress(" HTTPS://Acme.com/About ")).toBe("https://acme.com/About");
  });

  it("refuses other schemes, credentials, spaces and hosts without a dot", () => {
    for (const bad of [
      "javascript:alert(1)",
      "JavaScript:alert(1)",
      "data:text/html,hi",
      "ftp://acme.com",
      "https://user:pw@acme.com",
      "acme com",
      "localhost",
      "https://acme",
      "",
      "https://.com",
    ]) {
      expect(normalizeWebAddress(bad), bad).toBeUndefined();
    }
  });
});

describe("normalizeLinkedInAddress", () => {
  it("accepts LinkedIn profiles only", () => {
    expect(normalizeLinkedInAddress("linkedin.com/in/jane")).toBe("https://linkedin.com/in/jane");
    expect(normalizeLinkedInAddress("https://www.linkedin.com/in/jane")).toBe("https://www.linkedin.com/in/jane");
    expect(normalizeLinkedInAddress("https://linkedin.com.evil.example/in/jane")).toBeUndefined();
    expect(normalizeLinkedInAddress("javascript:alert(1)")).toBeUndefined();
  });
});

describe("websiteKey", () => {
  it("treats www., scheme, case and trailing slashes alike", () => {
    expect(websiteKey("https://www.Acme.com/")).toBe(websiteKey("http://acme.com"));
  });

  it("knows a site by its registrable domain: a path or a subdomain is the same site (they were not, checked)", () => {
    for (const href of ["https://acme.com/about", "https://careers.eu.acme.com/jobs?x=1", "http://shop.acme.com"]) {
      expect(websiteKey(href), href).toBe("acme.com");
    }
    expect(websiteKey("https://shop.acme.co.uk/")).toBe("acme.co.uk");
    // A hosting platform's suffix keeps its sites apart; an IP number stands for itself.
    expect(websiteKey("https://acme.github.io/")).not.toBe(websiteKey("https://other.github.io/"));
    expect(websiteKey("https://1.2.3.4/x")).toBe("1.2.3.4");
  });
});
