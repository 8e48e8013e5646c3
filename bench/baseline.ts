// The benchmark's yardstick: the fastest a Node.js HTTP server answers JSON on this machine.
import http from "node:http";

const body = JSON.stringify({ items: [{ id: 1, name: "Baseline", city: "Nowhere", reviewCount: 0 }], next: null });
const server = http.createServer((_req, res) => {
  res.writeHead(200, { "Content-Type": "application/json", "Content-Length": Buffer.byteLength(body) });
  res.end(body);
});
server.listen(Number(process.env.PORT), "127.0.0.1", () => process.send?.("listening"));
process.on("SIGTERM", () => server.close(() => process.exit(0)));
