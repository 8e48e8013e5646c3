import { Transform, type TransformCallback } from "node:stream";

const headEnd = "</head>";
const modulePreload = /<link rel="modulepreload" href="([^"]+)"[^>]*>/g;
/** React Router's inline module script: it imports the route's modules, then the entry that hydrates the page. */
const moduleScript = /<script( nonce="[^"]*")? type="module" async="">/;
/** Longer than any opening tag `moduleScript` matches: what is kept back in case a chunk ends inside one. */
const longestTag = 160;
const heldId = "deferred-module";
const scriptEnd = "</script>";

/**
 * Runs in the page right after the held module script, once the browser has shown its first paint (its paint
 * timing entry, which comes when the frame is on the screen; where paint timing is missing or fails, after the next
 * frame; at the latest after 3 s, as for a page opened in a background tab). It adds the route's modulepreload links
 * (fetched at once, as the head would have had them) and runs the held module script (its nonce carried over; a kept
 * page allows it by the hash of its text, which is the held script's).
 */
const loader =
  `{let done=false;const load=()=>{const held=document.getElementById("${heldId}");if(done||!held)return;done=true;` +
  `for(const href of (held.dataset.preload||"").split(" ").filter(Boolean)){` +
  `const link=document.createElement("link");link.rel="modulepreload";link.href=href;document.head.append(link);}` +
  `const script=document.createElement("script");script.type="module";script.nonce=held.nonce;` +
  `script.textContent=held.textContent;held.replaceWith(script);};` +
  `setTimeout(load,3000);` +
  `try{if(!PerformanceObserver.supportedEntryTypes.includes("paint"))throw 0;` +
  `new PerformanceObserver((_list,observer)=>{observer.disconnect();setTimeout(load);}).observe({type:"paint",buffered:true});` +
  `}catch{requestAnimationFrame(()=>setTimeout(load));}}`;

/**
 * Passes a rendered page through with its scripts loaded after its first paint (decision 0042).
 *
 * Every page is rendered on the server and works without JavaScript, so its first paint needs the HTML, the
 * stylesheet and the typeface only. React Router writes a `modulepreload` link in the head for every script of the
 * route and an inline module script that runs them, which the browser fetches, compiles and runs while it is still
 * laying out the page: on a phone they share the bandwidth and the main thread with the first paint, and Lighthouse
 * counts every script that finished loading before the paint as if the paint waited for it. Here the links leave
 * the head and the module script is held (a script type the browser does not run), followed by a small inline script
 * that adds both back after the first paint. React Router has no option for this, hence this pass.
 *
 * The bytes are read as latin1, one character per byte, so a UTF-8 character split between two chunks is carried over
 * unchanged (the patterns are ASCII, which no byte of a multi-byte UTF-8 character can match). It reads the document
 * up to `</head>`, then keeps back only the end of a chunk that may hold the start of the module script's tag.
 */
export function scriptsAfterFirstPaint(onFinal?: () => void): Transform {
  let pending = "";
  let stage: "head" | "body" | "held" | "done" = "head";
  let nonce = "";
  const preloads: string[] = [];

  /** Takes all of `pending` but its last `chars` characters, which may begin a tag the next chunk completes. */
  const allBut = (chars: number): string => {
    const cut = Math.max(0, pending.length - chars);
    const taken = pending.slice(0, cut);
    pending = pending.slice(cut);
    return taken;
  };

  /** What can be released of `pending` (all of it at the end of the page). */
  const release = (final: boolean): string => {
    let released = "";
    if (stage === "head") {
      const end = pending.indexOf(headEnd);
      if (end === -1 && !final) return "";
      const head = end === -1 ? pending : pending.slice(0, end);
      released += head.replace(modulePreload, (_link, href: string) => {
        preloads.push(href);
        return "";
      });
      pending = end === -1 ? "" : pending.slice(end);
      stage = "body";
    }
    if (stage === "body") {
      const found = moduleScript.exec(pending);
      if (found) {
        nonce = found[1] ?? "";
        released +=
          pending.slice(0, found.index) +
          `<script${nonce} type="candor/deferred-module" id="${heldId}" data-preload="${preloads.join(" ")}">`;
        pending = pending.slice(found.index + found[0].length);
        stage = "held";
      } else if (!final) {
        return released + allBut(longestTag);
      }
    }
    // The loader goes after the held script, so that it finds the whole of it whenever the paint comes.
    if (stage === "held") {
      const end = pending.indexOf(scriptEnd);
      if (end !== -1) {
        released += pending.slice(0, end + scriptEnd.length) + `<script${nonce}>${loader}</script>`;
        pending = pending.slice(end + scriptEnd.length);
        stage = "done";
      } else if (!final) {
        return released + allBut(scriptEnd.length);
      }
    }
    released += pending;
    pending = "";
    return released;
  };

  return new Transform({
    transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback) {
      if (stage === "done") {
        callback(null, chunk);
        return;
      }
      pending += chunk.toString("latin1");
      const released = release(false);
      callback(null, released ? Buffer.from(released, "latin1") : undefined);
    },
    flush(callback: TransformCallback) {
      onFinal?.();
      const released = release(true);
      callback(null, released ? Buffer.from(released, "latin1") : undefined);
    },
  });
}
