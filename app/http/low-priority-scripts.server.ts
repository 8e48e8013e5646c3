import { Transform, type TransformCallback } from "node:stream";

const modulePreload = '<link rel="modulepreload"';
const lowPriority = `${modulePreload} fetchpriority="low"`;
const headEnd = "</head>";

/**
 * Passes a rendered page through, giving the `modulepreload` links of its `<head>` `fetchpriority="low"`.
 *
 * Every page is rendered on the server and works without JavaScript, so its first paint needs the HTML and the
 * stylesheet only. React Router writes a `modulepreload` link for every script of the route, which the browser fetches
 * at high priority: on a slow connection they share the bandwidth with the stylesheet and the font, and Lighthouse
 * counts them as if they blocked the paint. At low priority they load after what the paint needs; the scripts still
 * load and run, only later. React Router's `<Scripts>` has no way to set the priority, hence this pass. It reads the
 * document up to `</head>` and copies the rest as it comes. The bytes are read as latin1, one character per byte, so a
 * UTF-8 character split between two chunks is carried over unchanged (the patterns are ASCII, which no byte of a
 * multi-byte UTF-8 character can match).
 */
export function lowPriorityModulePreloads(onFinal?: () => void): Transform {
  let head = "";
  let headDone = false;
  const release = (text: string) => Buffer.from(text.replaceAll(modulePreload, lowPriority), "latin1");

  return new Transform({
    transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback) {
      if (headDone) {
        callback(null, chunk);
        return;
      }
      head += chunk.toString("latin1");
      const end = head.indexOf(headEnd);
      if (end === -1) {
        callback();
        return;
      }
      headDone = true;
      this.push(release(head.slice(0, end)));
      const rest = Buffer.from(head.slice(end), "latin1");
      head = "";
      callback(null, rest);
    },
    flush(callback: TransformCallback) {
      onFinal?.();
      callback(null, headDone ? undefined : release(head));
    },
  });
}
