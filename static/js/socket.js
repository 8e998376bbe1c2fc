/**
 * One WebSocket per room that reconnects by itself. The server sends the current room and state
 * on every (re)connect, so the client never has to ask; it only has to come back. Back-off grows
 * 0.5 s, 1 s, 2 s … up to 10 s, and resets after a connection that stayed up. Each wait is drawn
 * between half and one and a half times that step, so the sockets of a server that died (or
 * restarted) come back spread out instead of all in the same instant.
 * State messages reach the handler whole (see wire.js); actions go out with the match id.
 */

import { StateReader } from "./wire.js";

const MAX_DELAY_MS = 10000;
const PING_EVERY_MS = 20000;

export class RoomSocket {
  /**
   * @param {string} code room code
   * @param {{onMessage: (msg: any) => void, onStatus: (status: string, retryInSeconds?: number) => void}} handlers
   */
  constructor(code, handlers) {
    this.code = code;
    this.handlers = handlers;
    this.delay = 500;
    this.closedByUs = false;
    this.ws = null;
    this.retryTimer = null;
    this.pingTimer = null;
    this.connect();
  }

  url() {
    const scheme = location.protocol === "https:" ? "wss:" : "ws:";
    return `${scheme}//${location.host}/ws/rooms/${encodeURIComponent(this.code)}`;
  }

  connect() {
    this.handlers.onStatus("connecting");
    const ws = new WebSocket(this.url());
    this.ws = ws;
    this.reader = new StateReader(); // a new connection starts from whole views again
    let opened = false;
    ws.addEventListener("open", () => {
      opened = true;
      this.handlers.onStatus("open");
      this.pingTimer = setInterval(() => this.send({ type: "ping" }), PING_EVERY_MS);
    });
    ws.addEventListener("message", (event) => {
      let message;
      try {
        message = JSON.parse(event.data);
      } catch {
        return;
      }
      if (message.type === "pong") return;
      if (message.type === "state") {
        message = this.reader.read(message);
        this.matchId = message.match_id;
      }
      this.delay = 500;
      this.handlers.onMessage(message);
    });
    ws.addEventListener("close", (event) => {
      clearInterval(this.pingTimer);
      if (this.ws !== ws || this.closedByUs) return;
      // 4401: no session (signed out elsewhere); 4404: no such room. Retrying cannot help.
      if (event.code === 4401 || event.code === 4404) {
        this.handlers.onStatus(event.code === 4401 ? "signed-out" : "gone");
        return;
      }
      if (!opened) this.delay = Math.min(this.delay * 2, MAX_DELAY_MS);
      const wait = this.delay * (0.5 + Math.random());
      this.handlers.onStatus("closed", Math.ceil(wait / 1000));
      this.retryTimer = setTimeout(() => this.connect(), wait);
      if (opened) this.delay = Math.min(this.delay * 2, MAX_DELAY_MS);
    });
  }

  /** Send a message now; false when the socket is not open (the caller shows that). */
  send(message) {
    if (!this.ws || this.ws.readyState !== WebSocket.OPEN) return false;
    if (message.type === "action" && message.match_id === undefined && this.matchId !== undefined) {
      message = { ...message, match_id: this.matchId };
    }
    this.ws.send(JSON.stringify(message));
    return true;
  }

  close() {
    this.closedByUs = true;
    clearTimeout(this.retryTimer);
    clearInterval(this.pingTimer);
    if (this.ws) this.ws.close();
  }
}
