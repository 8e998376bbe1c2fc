// Runs the browser's decoder (static/js/wire.js) over a recorded fixture and prints what it
// made of it as JSON: {"sockets": [[state, ...], ...]} for state messages (one StateReader per
// socket), {"steps": [...]} for a replay. tests/wire/test_wire_decoders.py compares the output.
import { readFileSync } from "node:fs";
import { StateReader, expandSteps } from "../../static/js/wire.js";

const fixture = JSON.parse(readFileSync(process.argv[2], "utf8"));
let answer;
if (fixture.sockets) {
  answer = {
    sockets: fixture.sockets.map((socket) => {
      const reader = new StateReader();
      return socket.messages.map((message) => reader.read(message));
    }),
  };
} else {
  answer = { steps: expandSteps(fixture.replay).map(({ patch, ...step }) => step) };
}
process.stdout.write(JSON.stringify(answer));
