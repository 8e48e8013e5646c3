import { describe, expect, it } from "vitest";
import { mailboxOf, personalProviderOf } from "./mailboxes.server.ts";

describe("mailboxOf", () => {
  it("spells every address of one mailbox alike: case, sub-addresses, and dots where the provider ignores them", () => {
    // Ten plus-addresses of one mailbox earned the badge of ten people (fails without it, checked).
    const jane = Array.from({ length: 10 }, (_, index) => `jane.doe+${index}@acmecorp.com`);
    expect(new Set([...jane, "Jane.Doe@AcmeCorp.com", "JANE.DOE+x@acmecorp.com."].map(mailboxOf))).toEqual(
      new Set(["jane.doe@acmecorp.com"]),
    );
    // Gmail delivers every dotted spelling to one mailbox, googlemail.com included.
    expect(mailboxOf("J.a.n.e.Doe+news@googlemail.com")).toBe("janedoe@gmail.com");
    expect(mailboxOf("jane.doe@gmail.com")).toBe("janedoe@gmail.com");
  });

  it("keeps what tells two people apart elsewhere: dots at a work domain, hyphens, subdomains", () => {
    // Google Workspace and the others keep dots: j.smith and jsmith may be two people.
    expect(mailboxOf("j.smith@acmecorp.com")).not.toBe(mailboxOf("jsmith@acmecorp.com"));
    expect(mailboxOf("anne-marie@acmecorp.com")).toBe("anne-marie@acmecorp.com");
    expect(mailboxOf("john@cs.uni.example")).not.toBe(mailboxOf("john@math.uni.example"));
    // A "+" that starts the local part is the name itself, not a sub-address.
    expect(mailboxOf("+jane@acmecorp.com")).toBe("+jane@acmecorp.com");
  });
});

describe("personalProviderOf", () => {
  // The alias and free-mail services the review named (22 of its 63 addresses got a code), and their kin.
  const forwarding = [
    "duck.com",
    "mozmail.com",
    "relay.firefox.com",
    "addy.io",
    "anonaddy.com",
    "anonaddy.me",
    "simplelogin.com",
    "simplelogin.co",
    "simplelogin.fr",
    "slmail.me",
    "aleeas.com",
    "8alias.com",
    "dralias.com",
    "silomails.com",
    "passmail.net",
    "passinbox.com",
    "burnermail.io",
    "erine.email",
    "mailinator.com",
    "guerrillamail.com",
    "yopmail.com",
    "10minutemail.com",
    "maildrop.cc",
    "temp-mail.io",
  ];
  const free = [
    "tutanota.com",
    "tutanota.de",
    "tuta.io",
    "tuta.com",
    "tutamail.com",
    "proton.me",
    "protonmail.com",
    "proton.ch",
    "pm.me",
    "fastmail.com",
    "fastmail.fm",
    "posteo.de",
    "mailfence.com",
    "zohomail.eu",
    "mailbox.org",
    "disroot.org",
    "riseup.net",
    "gmail.com",
    "googlemail.com",
    "outlook.com",
    "hotmail.com",
    "icloud.com",
    "me.com",
    "privaterelay.appleid.com",
    "hey.com",
    "yahoo.co.jp",
    "gmx.de",
    "web.de",
    "yandex.ru",
    "mail.ru",
    "qq.com",
    "163.com",
    "naver.com",
  ];

  it.each(forwarding)("refuses %s as a forwarding or throwaway service, on subdomains too", (domain) => {
    expect(personalProviderOf(`jane@${domain}`)).toBe("forwarding-or-throwaway");
    expect(personalProviderOf(`JANE@x.${domain.toUpperCase()}`)).toBe("forwarding-or-throwaway");
  });

  it.each(free)("refuses %s as a free-mail service", (domain) => {
    expect(personalProviderOf(`jane@${domain}`)).toBeDefined();
  });

  it("takes employers' own domains, those of large employers and universities included", () => {
    for (const domain of [
      "acmecorp.com",
      "mail.eu.example.co.uk",
      "microsoft.com",
      "comcast.com",
      "verizon.com",
      "att.com",
      "stanford.edu",
      "ox.ac.uk",
      "siemens.com",
      "mozilla.org",
      "duckduckgo.com",
    ]) {
      expect(personalProviderOf(`jane@${domain}`), domain).toBeUndefined();
    }
  });
});
