/**
 * A `Response` whose body is a string kept as it is. The API's answers are whole JSON documents: server/api.ts writes
 * the text to the socket as it is, instead of the web stream a `Response` makes of a string body when it is made and
 * the read of that stream back into bytes (about 25 µs an answer, measured in a loop: 12 for the constructor, 15 for
 * the read). Anywhere else (React Router, tests) it reads as any `Response`: its body is a `Response` of the text,
 * made the first time something reads it.
 */
export class TextResponse extends Response {
  readonly #text: string;
  #inner: Response | undefined;

  constructor(text: string, init: ResponseInit = {}) {
    super(null, init);
    this.#text = text;
    if (!this.headers.has("Content-Type")) this.headers.set("Content-Type", "text/plain;charset=UTF-8");
  }

  #read(): Response {
    this.#inner ??= new Response(this.#text, { headers: this.headers });
    return this.#inner;
  }

  /** The text, unless something has read the body already (it then reads as used, as a `Response` does). */
  get untouchedText(): string | undefined {
    return this.#inner ? undefined : this.#text;
  }

  override get body(): ReadableStream<Uint8Array<ArrayBuffer>> {
    return this.#read().body!;
  }

  override get bodyUsed(): boolean {
    return this.#inner?.bodyUsed ?? false;
  }

  override text(): Promise<string> {
    return this.#read().text();
  }

  override json(): Promise<unknown> {
    return this.#read().json();
  }

  override arrayBuffer(): Promise<ArrayBuffer> {
    return this.#read().arrayBuffer();
  }

  override bytes(): Promise<Uint8Array<ArrayBuffer>> {
    return this.#read().bytes();
  }

  override blob(): Promise<Blob> {
    return this.#read().blob();
  }

  override formData(): Promise<FormData> {
    return this.#read().formData();
  }

  override clone(): TextResponse {
    if (this.bodyUsed) throw new TypeError("Response.clone: Body has already been consumed.");
    return new TextResponse(this.#text, { status: this.status, statusText: this.statusText, headers: this.headers });
  }
}
