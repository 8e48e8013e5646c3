let lastClient = 0;

/**
 * A client address not used before in this test process. Behind TRUSTED_PROXIES=127.0.0.1 the server believes the
 * X-Forwarded-For that carries it, so each simulated person has rate-limit buckets of their own.
 */
export function newClientIp(): string {
  lastClient += 1;
  return `10.${(lastClient >> 16) & 255}.${(lastClient >> 8) & 255}.${lastClient & 255}`;
}

/** An e-mail address not used before in this test process. */
export function newEmail(label = "person"): string {
  lastClient += 1;
  return `${label}-${process.pid}-${lastClient}@example.com`;
}

/** Headers a browser sends with a form posted from the site's own page. */
export function sameOrigin(baseURL: string): Record<string, string> {
  return { "Sec-Fetch-Site": "same-origin", Origin: baseURL };
}

/**
 * A visitor speaking plain HTTP, as a browser without JavaScript would: keeps the cookies it is given, posts forms
 * from the site's own origin, and never follows redirects (tests read Location).
 */
export class Visitor {
  readonly baseURL: string;
  /** Sent as X-Forwarded-For when set. */
  readonly ip: string | undefined;
  readonly cookies = new Map<string, string>();

  constructor(baseURL: string, ip?: string) {
    this.baseURL = baseURL;
    this.ip = ip;
  }

  cookieHeader(): string {
    return [...this.cookies].map(([name, value]) => `${name}=${value}`).join("; ");
  }

  private keepCookies(response: Response): void {
    for (const cookie of response.headers.getSetCookie()) {
      const [pair = "", ...attributes] = cookie.split(";");
      const name = pair.slice(0, pair.indexOf("="));
      const value = pair.slice(pair.indexOf("=") + 1);
      const expired = attributes.some((attribute) => /^\s*max-age=0\s*$/i.test(attribute));
      if (expired || value === "") this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
  }

  async request(path: string, init: RequestInit = {}): Promise<Response> {
    const headers = new Headers(init.headers);
    if (this.ip && !headers.has("X-Forwarded-For")) headers.set("X-Forwarded-For", this.ip);
    if (this.cookies.size > 0 && !headers.has("Cookie")) headers.set("Cookie", this.cookieHeader());
    const response = await fetch(new URL(path, this.baseURL), { ...init, headers, redirect: "manual" });
    this.keepCookies(response);
    return response;
  }

  get(path: string, headers: HeadersInit = {}): Promise<Response> {
    return this.request(path, { headers });
  }

  /** Posts a form with the headers of the site's own page (same origin), or with `headers` instead. */
  post(
    path: string,
    fields: Record<string, string>,
    headers: HeadersInit = sameOrigin(this.baseURL),
  ): Promise<Response> {
    return this.request(path, { method: "POST", headers, body: new URLSearchParams(fields) });
  }

  /** Creates an account (the response must be the redirect that signs it in) and keeps its session cookie. */
  async signUp(email: string, password: string): Promise<void> {
    const response = await this.post("/signup", { email, password });
    if (response.status !== 302) throw new Error(`sign-up of ${email} answered ${response.status}`);
    await response.body?.cancel();
  }

  async signIn(email: string, password: string): Promise<Response> {
    return this.post("/signin", { email, password });
  }
}

const entities: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: '"', "#x27": "'", "#39": "'" };

/**
 * The number of reviews a company or manager page's headline is based on ("based on 6 reviews"); 0 for a page
 * without reviews, whose headline names no count. Other texts of the page name review counts too (the trend's
 * minimum per month, the lists), so only the headline's words are read.
 */
export function headlineReviewCount(html: string): number {
  return Number(/based on ([\d,]+) reviews?/.exec(html)?.[1]?.replaceAll(",", "") ?? 0);
}

/** The text of the page's message box (role="alert"), or null. */
export function alertText(html: string): string | null {
  const text = /role="alert"[^>]*>([^<]*)</.exec(html)?.[1];
  return text === undefined ? null : text.replace(/&(amp|lt|gt|quot|#x27|#39);/g, (_, name: string) => entities[name]!);
}
