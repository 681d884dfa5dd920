// A peer of the server benchmark: a Node `ws` echo server (npm ws 8), each text frame sent back
// as text. `node benches/node/ws_echo.mjs [PORT]` (0: any free port).
import { WebSocketServer } from "ws";

const port = Number(process.argv[2] || 0);
const server = new WebSocketServer({ host: "127.0.0.1", port });
server.on("listening", () => {
  console.error(`node ws echo listening address=127.0.0.1:${server.address().port}`);
});
server.on("connection", (socket) => {
  socket.on("message", (data, isBinary) => socket.send(data, { binary: isBinary }));
});
