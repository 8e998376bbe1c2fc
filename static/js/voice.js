/**
 * Voice at the table: the people of a room who join voice hear each other, browser to browser.
 *
 * Off for everyone until a person presses "Join voice", the only moment the browser asks for the
 * microphone. Each pair of people in voice holds one RTCPeerConnection (a room seats at most ten):
 * the audio (Opus) goes from browser to browser, or through the room's TURN server, never through
 * the app's server, which only relays over the room's socket what the browsers need to find each
 * other (app/live/voice.py): `{type: "voice", event: "join" | "leave" | "mute" | "roster" |
 * "signal"}`. Of each pair, the person with the lower id makes the offer, so two offers never cross.
 *
 * What a person sees: the table's status line holds the voice buttons (join; once in voice,
 * mute, the volumes and leave, which phones keep in the volumes panel to leave the line room;
 * the M key mutes and unmutes), each seat whose person is in voice
 * shows a microphone (struck through when muted) and a ring while they speak (from the audio
 * level: the microphone's through an AnalyserNode, the others' from the connections' statistics),
 * and the lobby lists who is in voice. A lost socket leaves voice on the server; when it comes
 * back, the page joins again with the microphone it already has.
 */
import { h, svg } from "./dom.js";
import { addStrings, lang, t } from "./i18n.js";
import { announce } from "./announce.js";

addStrings({
  en: {
    "voice.join": "Join voice",
    "voice.join.title": "Talk with the people at this table (asks for your microphone)",
    "voice.leave": "Leave voice",
    "voice.mute": "Mute",
    "voice.unmute": "Unmute",
    "voice.mute.title": "Mute your microphone (M)",
    "voice.unmute.title": "Unmute your microphone (M)",
    "voice.volumes": "Volumes",
    "voice.volumes.title": "Everyone's volume",
    "voice.volume.of": "Volume of {name}",
    "voice.close": "Close",
    "voice.section": "Voice",
    "voice.nobody": "Nobody is in voice.",
    "voice.who": "In voice: {names}",
    "voice.in": "In voice",
    "voice.in.muted": "In voice, muted",
    "voice.you": "you",
    "voice.joined.you": "You joined voice.",
    "voice.left.you": "You left voice.",
    "voice.muted.you": "Microphone muted.",
    "voice.unmuted.you": "Microphone on.",
    "voice.elsewhere": "Your voice moved to your other window.",
    "voice.no_mic": "No microphone: {reason}",
    "voice.unsupported": "This browser cannot do voice calls.",
    "voice.refused": "Voice: {message}",
  },
  ja: {
    "voice.join": "音声に参加",
    "voice.join.title": "このテーブルの人と話します（マイクの使用を求めます）",
    "voice.leave": "音声から退出",
    "voice.mute": "ミュート",
    "voice.unmute": "ミュート解除",
    "voice.mute.title": "マイクをミュートします（M）",
    "voice.unmute.title": "マイクのミュートを解除します（M）",
    "voice.volumes": "音量",
    "voice.volumes.title": "各参加者の音量",
    "voice.volume.of": "{name}の音量",
    "voice.close": "閉じる",
    "voice.section": "音声",
    "voice.nobody": "音声に参加している人はいません。",
    "voice.who": "音声に参加中: {names}",
    "voice.in": "音声に参加中",
    "voice.in.muted": "音声に参加中（ミュート）",
    "voice.you": "あなた",
    "voice.joined.you": "音声に参加しました。",
    "voice.left.you": "音声から退出しました。",
    "voice.muted.you": "マイクをミュートしました。",
    "voice.unmuted.you": "マイクをオンにしました。",
    "voice.elsewhere": "音声は別のウィンドウに移りました。",
    "voice.no_mic": "マイクを使えません: {reason}",
    "voice.unsupported": "このブラウザーでは音声通話ができません。",
    "voice.refused": "音声: {message}",
  },
});

const LEVEL_EVERY_MS = 150;
const SPEAKING_LEVEL = 0.02;
/** An audio level (0..1, as getStats reports it) above which a person counts as speaking. */
const SPEAKING_HOLD_MS = 400;
/** A ring stays this long after the level drops, so it does not flicker between syllables. */
const VOLUME_KEY = "cardtable.voice.volume.";

/** The page's voice, for diagnostics (the browser tests read its connections' statistics). */
export let activeVoice = null;

function micIcon(muted) {
  return svg("svg", { class: "voice-icon", viewBox: "0 0 16 16", width: "14", height: "14", "aria-hidden": "true" },
    svg("path", { d: "M8 1.5a2.5 2.5 0 0 0-2.5 2.5v4a2.5 2.5 0 0 0 5 0V4A2.5 2.5 0 0 0 8 1.5zM3.5 7.5h1.2a3.3 3.3 0 0 0 6.6 0h1.2a4.5 4.5 0 0 1-3.9 4.45V14h2v1.3H5.4V14h2v-2.05A4.5 4.5 0 0 1 3.5 7.5z", fill: "currentColor" }),
    muted ? svg("path", { d: "M2.5 2.5l11 11", stroke: "currentColor", "stroke-width": "1.6", "stroke-linecap": "round" }) : null);
}

function speakerIcon() {
  return svg("svg", { class: "voice-icon", viewBox: "0 0 16 16", width: "14", height: "14", "aria-hidden": "true" },
    svg("path", { d: "M2 6h3l4-3.5v11L5 10H2z", fill: "currentColor" }),
    svg("path", { d: "M11 5.5a3.5 3.5 0 0 1 0 5M12.8 3.5a6 6 0 0 1 0 9", stroke: "currentColor", "stroke-width": "1.4", fill: "none", "stroke-linecap": "round" }));
}

function typing(target) {
  return target instanceof HTMLElement && (target.isContentEditable || ["INPUT", "TEXTAREA", "SELECT"].includes(target.tagName));
}

export class Voice {
  /**
   * @param {{send: (message: object) => boolean, me: number, onChange: () => void, notice: (text: string) => void}} options
   */
  constructor(options) {
    this.sendRaw = options.send;
    this.me = options.me;
    this.onChange = options.onChange;
    this.notice = options.notice;
    /** Who is in the room's voice: person id -> {name, muted}. */
    this.people = new Map();
    this.joined = false;
    this.joining = false;
    this.muted = false;
    this.stream = null;
    this.iceServers = [];
    this.icePolicy = "all";
    /** person id -> {pc, audio, candidates (waiting for the remote description)} */
    this.peers = new Map();
    this.speaking = new Set();
    this.loudAt = new Map();
    this.levelTimer = null;
    this.audioContext = null;
    this.localAnalyser = null;
    this.panel = null;
    this.supported = Boolean(window.RTCPeerConnection && navigator.mediaDevices && navigator.mediaDevices.getUserMedia);
    activeVoice = this;
    this.keys = new AbortController();
    document.addEventListener("keydown", (event) => {
      if (event.key.toLowerCase() !== "m" || event.ctrlKey || event.metaKey || event.altKey || event.repeat) return;
      if (!this.joined || typing(event.target)) return;
      event.preventDefault();
      this.setMuted(!this.muted);
    }, { signal: this.keys.signal });
  }

  send(message) {
    return this.sendRaw({ type: "voice", ...message });
  }

  /** The room's socket opened (again): ask who is in voice, and come back if we were in it. */
  connected() {
    this.send({ event: "roster" });
    if (this.joined) this.send({ event: "join" });
  }

  /** The socket dropped: the server took us out of voice; our connections go with it. */
  disconnected() {
    for (const id of [...this.peers.keys()]) this.closePeer(id);
    this.people.clear();
    this.changed();
  }

  /** A `{type: "voice"}` message from the server. */
  handle(message) {
    switch (message.event) {
      case "roster":
        this.people = new Map((message.people || []).map((p) => [p.person_id, { name: p.name, muted: p.muted }]));
        break;
      case "welcome":
        this.iceServers = message.ice_servers || [];
        this.icePolicy = message.ice_transport_policy || "all";
        this.people = new Map((message.people || []).map((p) => [p.person_id, { name: p.name, muted: p.muted }]));
        if (this.muted) this.send({ event: "mute", muted: true });
        for (const id of this.people.keys()) this.meet(id);
        break;
      case "joined":
        this.people.set(message.person_id, { name: message.name, muted: message.muted });
        if (this.joined && this.iceServers && message.person_id !== this.me) {
          this.closePeer(message.person_id); // a new session of theirs: start afresh
          this.meet(message.person_id);
        }
        break;
      case "left":
        this.people.delete(message.person_id);
        this.closePeer(message.person_id);
        break;
      case "muted": {
        const person = this.people.get(message.person_id);
        if (person) person.muted = message.muted;
        break;
      }
      case "signal":
        this.signal(message.from, message);
        return;
      case "ended":
        this.stop();
        this.notice(t("voice.elsewhere"));
        break;
      default:
        return;
    }
    this.changed();
  }

  /** An error frame about voice (its code starts with "voice_"). */
  refused(message) {
    this.notice(t("voice.refused", { message: message.messages ? message.messages[lang() === "ja" ? "ja" : "en"] : message.message }));
  }

  changed() {
    this.onChange();
    if (this.panel) this.drawPanel();
  }

  async join() {
    if (this.joined || this.joining) return;
    if (!this.supported) {
      this.notice(t("voice.unsupported"));
      return;
    }
    this.joining = true;
    this.changed();
    try {
      this.stream = await navigator.mediaDevices.getUserMedia({
        audio: { echoCancellation: true, noiseSuppression: true, autoGainControl: true },
        video: false,
      });
    } catch (error) {
      this.joining = false;
      this.changed();
      this.notice(t("voice.no_mic", { reason: error && error.message ? error.message : String(error) }));
      return;
    }
    this.joining = false;
    this.joined = true;
    this.muted = false;
    this.listenToMicrophone();
    this.send({ event: "join" });
    this.levelTimer = setInterval(() => this.measureLevels(), LEVEL_EVERY_MS);
    announce(t("voice.joined.you"));
    this.changed();
  }

  leave() {
    if (!this.joined) return;
    this.send({ event: "leave" });
    this.stop();
    announce(t("voice.left.you"));
    this.changed();
  }

  /** Out of voice here: every connection closed, the microphone released. */
  stop() {
    this.joined = false;
    this.joining = false;
    for (const id of [...this.peers.keys()]) this.closePeer(id);
    if (this.stream) for (const track of this.stream.getTracks()) track.stop();
    this.stream = null;
    clearInterval(this.levelTimer);
    this.levelTimer = null;
    if (this.audioContext) this.audioContext.close();
    this.audioContext = null;
    this.localAnalyser = null;
    this.speaking.clear();
    this.drawRings();
  }

  setMuted(muted) {
    if (!this.joined) return;
    this.muted = muted;
    for (const track of this.stream.getAudioTracks()) track.enabled = !muted;
    this.send({ event: "mute", muted });
    announce(t(muted ? "voice.muted.you" : "voice.unmuted.you"));
    this.changed();
  }

  /** Someone in voice we have no connection with: the lower id of the pair offers. */
  meet(id) {
    if (id === this.me || this.peers.has(id) || !this.joined) return;
    if (this.me < id) this.peer(id, true);
  }

  peer(id, offering) {
    const pc = new RTCPeerConnection({ iceServers: this.iceServers, iceTransportPolicy: this.icePolicy });
    const audio = new Audio();
    audio.autoplay = true;
    audio.volume = this.volume(id);
    const entry = { pc, audio, candidates: [], offering };
    this.peers.set(id, entry);
    for (const track of this.stream.getAudioTracks()) pc.addTrack(track, this.stream);
    pc.addEventListener("icecandidate", (event) => {
      if (event.candidate) this.send({ event: "signal", to: id, candidate: event.candidate.toJSON() });
    });
    pc.addEventListener("track", (event) => {
      audio.srcObject = event.streams[0] || new MediaStream([event.track]);
      audio.play().catch(() => {});
    });
    pc.addEventListener("connectionstatechange", () => {
      if (pc.connectionState === "failed" && entry.offering && this.peers.get(id) === entry) this.offer(id, entry, true);
    });
    if (offering) this.offer(id, entry, false);
    return entry;
  }

  async offer(id, entry, restart) {
    try {
      const offer = await entry.pc.createOffer(restart ? { iceRestart: true } : {});
      await entry.pc.setLocalDescription(offer);
      this.send({ event: "signal", to: id, description: { type: offer.type, sdp: offer.sdp } });
    } catch (error) {
      console.warn("voice: could not offer", error);
    }
  }

  async signal(from, message) {
    if (!this.joined || from === this.me) return;
    let entry = this.peers.get(from);
    try {
      if (message.description) {
        if (message.description.type === "offer") {
          if (!entry || entry.offering) {
            if (entry) this.closePeer(from);
            entry = this.peer(from, false);
          }
          await entry.pc.setRemoteDescription(message.description);
          const answer = await entry.pc.createAnswer();
          await entry.pc.setLocalDescription(answer);
          this.send({ event: "signal", to: from, description: { type: answer.type, sdp: answer.sdp } });
        } else if (entry && message.description.type === "answer") {
          await entry.pc.setRemoteDescription(message.description);
        }
        if (entry) for (const candidate of entry.candidates.splice(0)) await entry.pc.addIceCandidate(candidate);
      } else if (message.candidate && entry) {
        if (entry.pc.remoteDescription) await entry.pc.addIceCandidate(message.candidate);
        else entry.candidates.push(message.candidate);
      }
    } catch (error) {
      console.warn("voice: a signal could not be used", error);
    }
  }

  closePeer(id) {
    const entry = this.peers.get(id);
    if (!entry) return;
    this.peers.delete(id);
    entry.pc.close();
    entry.audio.srcObject = null;
    this.speaking.delete(id);
    this.drawRings();
  }

  volume(id) {
    const stored = Number(localStorage.getItem(VOLUME_KEY + id));
    return localStorage.getItem(VOLUME_KEY + id) !== null && stored >= 0 && stored <= 1 ? stored : 1;
  }

  setVolume(id, value) {
    localStorage.setItem(VOLUME_KEY + id, String(value));
    const entry = this.peers.get(id);
    if (entry) entry.audio.volume = value;
  }

  /** Our own level, from the microphone through an AnalyserNode (silent while muted). */
  listenToMicrophone() {
    try {
      this.audioContext = new AudioContext();
      const source = this.audioContext.createMediaStreamSource(this.stream);
      this.localAnalyser = this.audioContext.createAnalyser();
      this.localAnalyser.fftSize = 512;
      source.connect(this.localAnalyser);
    } catch (error) {
      console.warn("voice: no level meter for the microphone", error);
    }
  }

  localLevel() {
    if (!this.localAnalyser || this.muted) return 0;
    const samples = new Float32Array(this.localAnalyser.fftSize);
    this.localAnalyser.getFloatTimeDomainData(samples);
    let peak = 0;
    for (const sample of samples) peak = Math.max(peak, Math.abs(sample));
    return peak;
  }

  async measureLevels() {
    const now = performance.now();
    const levels = new Map([[this.me, this.localLevel()]]);
    await Promise.all([...this.peers].map(async ([id, entry]) => {
      try {
        const stats = await entry.pc.getStats();
        stats.forEach((report) => {
          if (report.type === "inbound-rtp" && report.kind === "audio") levels.set(id, report.audioLevel || 0);
        });
      } catch {
        // closed meanwhile
      }
    }));
    for (const [id, level] of levels) if (level > SPEAKING_LEVEL) this.loudAt.set(id, now);
    const speaking = new Set([...this.loudAt].filter(([id, at]) => now - at < SPEAKING_HOLD_MS && (id === this.me || this.peers.has(id))).map(([id]) => id));
    if (speaking.size !== this.speaking.size || [...speaking].some((id) => !this.speaking.has(id))) {
      this.speaking = speaking;
      this.drawRings();
    }
  }

  /** The speaking rings, straight on the seats between the table's redraws (which ask `seatMark`). */
  drawRings() {
    for (const seat of document.querySelectorAll(".seat[data-person]")) {
      seat.classList.toggle("speaking", this.speaking.has(Number(seat.dataset.person)));
    }
  }

  /** A seat's voice state for the table's drawing: null when its person is not in voice. */
  seatMark(personId) {
    const person = this.people.get(personId);
    if (!person) return null;
    const muted = personId === this.me ? this.muted : person.muted;
    const label = t(muted ? "voice.in.muted" : "voice.in");
    return {
      classes: ["in-voice", muted && "voice-muted", this.speaking.has(personId) && "speaking"],
      node: h("span", { class: ["voice-mark", muted && "muted"], role: "img", "aria-label": label, title: label, "data-testid": "voice-mark" }, micIcon(muted)),
    };
  }

  /** The buttons among the table's tools (drawn anew with the table). */
  toolButtons() {
    if (!this.joined) {
      return h("button", {
        type: "button", class: ["small", "voice-join"], "data-testid": "voice-join", title: t("voice.join.title"),
        disabled: this.joining || !this.supported, onclick: () => this.join(),
      }, micIcon(false), h("span", { class: "voice-word" }, ` ${t("voice.join")}`));
    }
    return h("span", { class: "voice-tools", role: "group", "aria-label": t("voice.section") },
      h("button", {
        type: "button", class: ["small", "voice-mute", this.muted && "on"], "data-testid": "voice-mute",
        "aria-pressed": this.muted ? "true" : "false", "aria-keyshortcuts": "M",
        title: t(this.muted ? "voice.unmute.title" : "voice.mute.title"), onclick: () => this.setMuted(!this.muted),
      }, micIcon(this.muted), h("span", { class: "voice-word" }, ` ${t(this.muted ? "voice.unmute" : "voice.mute")}`)),
      h("button", {
        type: "button", class: "small voice-volumes", "data-testid": "voice-volumes", "aria-expanded": this.panel ? "true" : "false",
        title: t("voice.volumes.title"), onclick: () => this.togglePanel(),
      }, speakerIcon(), h("span", { class: "voice-word" }, ` ${t("voice.volumes")}`)),
      h("button", {
        type: "button", class: "small voice-leave", "data-testid": "voice-leave", onclick: () => this.leave(),
      }, "✕", h("span", { class: "voice-word" }, ` ${t("voice.leave")}`)));
  }

  /** The lobby's voice section: who is in voice, and the same buttons. */
  lobbySection() {
    const names = [...this.people].map(([id, p]) => (id === this.me ? `${p.name} (${t("voice.you")})` : p.name));
    return h("section", { class: "lobby-section voice-section", "data-testid": "voice-section" },
      h("h2", null, t("voice.section")),
      h("p", { class: "voice-who", "data-testid": "voice-who" }, names.length ? t("voice.who", { names: names.join(", ") }) : t("voice.nobody")),
      h("div", { class: "voice-lobby-tools" }, this.toolButtons()));
  }

  /** A member's mark in the lobby's member list (null when not in voice). */
  memberMark(personId) {
    const mark = this.seatMark(personId);
    return mark ? mark.node : null;
  }

  togglePanel() {
    if (this.panel) {
      this.panel.remove();
      this.panel = null;
    } else {
      this.panel = h("div", { class: "voice-panel", role: "dialog", "aria-label": t("voice.volumes.title"), "data-testid": "voice-panel" });
      document.body.append(this.panel);
      this.drawPanel();
      const first = this.panel.querySelector("input, button");
      if (first) first.focus();
    }
    this.onChange();
  }

  drawPanel() {
    if (!this.joined) {
      this.panel.remove();
      this.panel = null;
      return;
    }
    const rows = [...this.people].filter(([id]) => id !== this.me).map(([id, p]) => {
      const label = t("voice.volume.of", { name: p.name });
      return h("label", { class: "voice-volume" },
        h("span", null, p.name, p.muted ? h("span", { class: "voice-mark muted", role: "img", "aria-label": t("voice.in.muted") }, micIcon(true)) : null),
        h("input", {
          type: "range", min: "0", max: "1", step: "0.05", value: String(this.volume(id)), "aria-label": label,
          "data-testid": "voice-volume", "data-person": String(id), oninput: (event) => this.setVolume(id, Number(event.target.value)),
        }));
    });
    this.panel.replaceChildren(
      h("h2", null, t("voice.volumes.title")),
      rows.length ? h("div", { class: "voice-volume-list" }, rows) : h("p", { class: "muted" }, t("voice.nobody")),
      h("div", { class: "voice-panel-buttons" },
        h("button", { type: "button", class: "small voice-leave", "data-testid": "voice-panel-leave", onclick: () => this.leave() }, t("voice.leave")),
        h("button", { type: "button", class: "small", onclick: () => this.togglePanel() }, t("voice.close"))));
    this.panel.onkeydown = (event) => {
      if (event.key === "Escape") this.togglePanel();
    };
  }
}
