/**
 * The country a search starts with when the address names none: the visitor's last choice, kept in this browser
 * (localStorage, never a cookie, so pages stay in the page cache), or else the region of the browser's first language
 * that names a known country ("de-DE", and "de" read as Germany). Runs in the browser only.
 */
const storageKey = "candor:country";

export function rememberCountry(code: string): void {
  try {
    window.localStorage.setItem(storageKey, code);
  } catch {
    // Storage turned off: the choice is simply not remembered.
  }
}

export function preferredCountry(
  known: ReadonlySet<string>,
  browser: { stored: string | null; languages: readonly string[] } = readBrowser(),
): string | undefined {
  if (browser.stored && known.has(browser.stored)) return browser.stored;
  for (const tag of browser.languages) {
    try {
      const region = new Intl.Locale(tag).maximize().region;
      if (region && known.has(region)) return region;
    } catch {
      // Not a language tag: the next one may be.
    }
  }
  return undefined;
}

function readBrowser(): { stored: string | null; languages: readonly string[] } {
  let stored: string | null = null;
  try {
    stored = window.localStorage.getItem(storageKey);
  } catch {
    stored = null;
  }
  return { stored, languages: navigator.languages.length > 0 ? navigator.languages : [navigator.language] };
}
