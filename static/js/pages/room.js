/** The room page: lobby (seats, invite, options, start/rematch, leaderboard) and the live table. */
import { h, replace } from "../dom.js";
import { afterPress } from "../press.js";
import { keepFocus } from "../focus.js";
import { ApiError, del, gameById, get, me, patch, post } from "../api.js";
import { lang, pick, t } from "../i18n.js";
import { RoomSocket } from "../socket.js";
import { ChatPanel } from "../chat.js";
import { Voice } from "../voice.js";
import { Table, loadPlugin } from "../table.js";
import { errorBox, errorText, defaultRoomName, gameName, header, loading, loginForm, main, nameForm, redraw, seatLabel } from "./common.js";
import { optionsEditor } from "./options-editor.js";
import { timingFields } from "./create-room.js";
import { leaderboardChart, leaderboardTable, normaliseLeaderboard } from "./boards.js";
import { roomName, setTabTitle } from "./names.js";
import { confirmAction } from "../confirm.js";
import { alertPerson } from "../alerts.js";

export function roomPage(code) {
  const page = {
    code,
    person: null,
    room: null,
    game: null,
    plugin: null,
    table: null,
    socket: null,
    leaderboard: null,
    connection: "connecting",
    notice: null,
    lobbyEl: h("div", { class: "lobby" }),
    tableEl: h("div", { class: "table", "data-testid": "table" }),
    noticeEl: h("div", { class: "page-notice" }),
    // The page's level-one heading while the table is shown (the lobby's own heading is folded).
    headingEl: h("h1", { class: "visually-hidden", "data-testid": "room-heading" }),
    barEl: h("div", { class: "start-bar" }),
    hasState: false,
    lobbyOpen: null,
    optionsDraft: null,
    optionsStatus: null,
    renaming: false,
    rotateDeals: false,
  };

  async function start() {
    loading();
    page.person = await me();
    header(page.person);
    if (!page.person) {
      replace(main, await invitation(), nameForm(start, t("landing.name.title")), loginForm(start));
      return;
    }
    try {
      page.room = await get(`/api/rooms/${encodeURIComponent(code)}`);
    } catch (error) {
      replace(main, h("p", { class: "error" }, error instanceof ApiError && error.status === 404 ? t("room.notfound") : errorText(error)));
      return;
    }
    page.game = await gameById(page.room.game_id);
    page.plugin = await loadPlugin(page.room.game_id);
    page.table = new Table(page.tableEl, {
      gameId: page.room.game_id,
      plugin: page.plugin,
      send: (message) => (page.socket ? page.socket.send(message) : false),
      rulesHref: rulesHref(),
      seatActions: {
        take: (n) => act(() => post(`/api/rooms/${code}/seats/${n}`, { as: "me" })),
        invite: () => (page.room && page.room.invite_url ? new URL(page.room.invite_url, location.origin).href : location.href),
      },
    });
    page.table.setRoom(page.room);
    // The room's chat: under the lobby until a table is shown, then the table's dock.
    page.chat = new ChatPanel({
      load: (before) => get(`/api/rooms/${encodeURIComponent(code)}/chat${before ? `?before=${before}` : ""}`),
      send: (text) => (page.socket ? page.socket.send({ type: "chat", text }) : false),
      me: page.person.id,
    });
    page.voice = new Voice({
      send: (message) => (page.socket ? page.socket.send(message) : false),
      me: page.person.id,
      onChange: () => {
        page.table.render();
        renderLobby();
      },
      notice: (text) => (page.hasState ? page.table.showNotice(text) : showNotice(text)),
    });
    page.table.setVoice(page.voice);
    replace(main, page.headingEl, page.noticeEl, page.barEl, page.tableEl, page.lobbyEl, h("div", { class: "chat-home" }, page.chat.el));
    renderLobby();
    loadLeaderboard();
    page.socket = new RoomSocket(code, {
      onStatus: (status, seconds) => {
        if (status === "signed-out") {
          location.reload(); // the page asks for a name or a sign-in again
          return;
        }
        if (status === "gone") {
          replace(main, h("p", { class: "error" }, t("room.notfound")));
          return;
        }
        page.connection = status;
        // Lines sent while away are read back, once the server's first room message shows the
        // socket is subscribed: read at "open", a line said in between would reach neither.
        if (status === "open") page.chatBehind = true;
        if (status === "open") page.voice.connected();
        else if (status === "closed") page.voice.disconnected();
        page.table.setConnection(status);
        renderConnection(seconds);
      },
      onMessage: handleMessage,
    });
    window.addEventListener("beforeunload", () => page.socket.close());
  }

  /** Who invites to what, above the name form of a person who opens an invite link before they
   * have a name (the code alone shows the room's invitation); nothing when the room is unknown. */
  async function invitation() {
    let room;
    try {
      room = await get(`/api/rooms/${encodeURIComponent(code)}`);
    } catch {
      return null;
    }
    const game = room.game_names ? pick(room.game_names) : room.game_id;
    return h("section", { class: "card-panel invitation", "data-testid": "invitation" },
      h("h2", null, room.host_name ? t("room.invite.title", { host: room.host_name, game }) : t("room.invite.title.nohost", { game })),
      h("p", null, t("room.invite.room", { room: roomName(room.display_name, room.name || ""), n: room.seat_count ?? (room.seats || []).length })));
  }

  function rulesHref() {
    return (page.game && page.game.rules_url) || `/rules/${page.room.game_id}`;
  }

  function renderConnection(seconds) {
    const el = document.getElementById("conn-line");
    if (!el) return;
    const key = page.connection === "open" ? "conn.open" : page.connection === "closed" ? "conn.closed" : "conn.connecting";
    replace(el, h("span", { class: ["conn-line", `conn-${page.connection}`], "data-conn": page.connection },
      h("span", { class: "dot" }), t(key, { s: seconds ?? "" })));
  }

  function handleMessage(message) {
    if (message.type === "room") {
      if (page.chatBehind) {
        page.chatBehind = false;
        page.chat.reload();
      }
      if (!readLater(message.room)) return;
      if (sameRoom(message.room, page.room)) {
        // The socket's copy of a change this page already shows (its own answer came first):
        // drawing the lobby again would change nothing (a press under way is kept safe from
        // every redraw by static/js/press.js).
        page.room = message.room;
        return;
      }
      const previousStatus = page.room && page.room.match ? page.room.match.status : null;
      page.room = message.room;
      page.table.setRoom(page.room);
      renderLobby();
      const status = page.room.match ? page.room.match.status : null;
      if (status !== previousStatus) loadLeaderboard();
    } else if (message.type === "chat") {
      page.chat.receive(message.message);
      const line = message.message;
      if (line && page.person && line.person_id !== page.person.id) alertPerson("chat", t("alerts.chat", { name: line.name ?? "?" }), line.text);
    } else if (message.type === "state") {
      const before = matchStatus();
      const firstState = !page.hasState;
      page.hasState = true;
      if (firstState) page.table.setDock(page.chat.dock());
      page.table.setState(message);
      if (before !== matchStatus()) {
        page.lobbyOpen = null;
        loadLeaderboard();
      }
      if (firstState || before !== matchStatus()) renderLobby();
    } else if (message.type === "voice") {
      page.voice.handle(message);
    } else if (message.type === "error" && String(message.code).startsWith("voice_")) {
      page.voice.refused(message);
    } else if (message.type === "error" && ["bad_chat", "rate_limited"].includes(message.code)) {
      page.chat.refused(message);
    } else if (message.type === "timers") {
      page.table.setTimers(message);
    } else if (message.type === "error") {
      const key = {
        stale: "error.stale", illegal: "error.illegal", malformed: "error.malformed", forbidden: "error.forbidden",
        take_back_refused: "error.take_back_refused",
      }[message.code];
      // The server words the reason in English; its Japanese line is the general kind of error.
      let text = key ? t(key, { message: message.message }) : message.message;
      if (lang() === "ja" && message.messages && message.messages.ja && message.code !== "stale") {
        text = `${message.messages.ja}（${message.message}）`;
      }
      page.table.showNotice(text);
      if (!page.hasState) showNotice(text);
    }
  }

  function showNotice(text, isError = true) {
    replace(page.noticeEl, text ? h("p", { class: isError ? "error" : "ok", role: "alert" }, text) : null);
  }

  /** Run lobby requests one after another, so a quick second click (take a seat, then fill
   * the rest with bots) sees the result of the first. */
  let queue = Promise.resolve();
  function enqueue(task) {
    queue = queue.then(task, task);
    return queue;
  }

  /** Whether `room` was read no earlier than the copy shown: the answer to this person's own
   * change can arrive before the socket's copy read just before it, which must not undo it. */
  function readLater(room) {
    return !page.room || !(room.read_at < page.room.read_at);
  }

  /** Whether two copies of the room say the same, whenever each was read. */
  function sameRoom(a, b) {
    if (!a || !b) return false;
    const canonical = (room) => JSON.stringify({ ...room, read_at: null }, (key, value) =>
      value && typeof value === "object" && !Array.isArray(value)
        ? Object.fromEntries(Object.keys(value).sort().map((k) => [k, value[k]]))
        : value);
    return canonical(a) === canonical(b);
  }

  /** An answer's copy of the room; the lobby is drawn again either way, since the caller may
   * have changed what it shows (a closed form, a status line). */
  function setRoom(room) {
    if (room && room.code) {
      if (readLater(room)) {
        page.room = room;
        page.table.setRoom(page.room);
      }
      renderLobby();
    }
  }

  function act(request) {
    return enqueue(async () => {
      showNotice(null);
      try {
        setRoom(await request());
      } catch (error) {
        showNotice(errorText(error));
      }
    });
  }

  /** Host: a bot in every seat that is empty now (the room is re-read first). */
  function fillWithBots() {
    return enqueue(async () => {
      showNotice(null);
      try {
        let room = await get(`/api/rooms/${encodeURIComponent(code)}`);
        for (const seat of room.seats.filter((s) => !s.kind)) {
          try {
            room = await post(`/api/rooms/${code}/seats/${seat.n}`, { as: "bot" });
          } catch (error) {
            // Someone sat down there meanwhile: leave them be and go on.
            if (!(error instanceof ApiError && error.status === 409)) throw error;
          }
        }
        setRoom(await get(`/api/rooms/${encodeURIComponent(code)}`));
      } catch (error) {
        showNotice(errorText(error));
      }
    });
  }

  async function loadLeaderboard() {
    try {
      page.leaderboard = await get(`/api/rooms/${encodeURIComponent(code)}/leaderboard`);
    } catch {
      page.leaderboard = null;
    }
    renderLobby();
  }

  const isHost = () => Boolean(page.person && page.room && page.room.host_id === page.person.id);
  /** The room's latest match status; a state showing that match over counts as finished even
   * before the next room message says so. */
  const matchStatus = () => {
    const roomMatch = page.room ? page.room.match : null;
    const state = page.table && page.table.state;
    // The live state can be ahead of the last room message (a match just started or ended).
    if (state && (!roomMatch || state.match_id >= roomMatch.id)) {
      const view = page.table.currentView();
      if (view) return view.phase === "match_over" || (view.to_act || []).length === 0 ? "finished" : "running";
    }
    return roomMatch ? roomMatch.status : null;
  };
  const matchRunning = () => {
    const status = matchStatus();
    return status !== null && !["finished", "over", "abandoned", "done"].includes(status);
  };

  /** Host: how well this seat's bot plays; the server uses a change at once, even mid-match. */
  function levelPicker(seat) {
    return h("select", { class: "small", "data-testid": `level-${seat.n}`, "aria-label": t("room.level"),
      title: t("room.level.help"),
      onchange: (e) => act(() => post(`/api/rooms/${code}/seats/${seat.n}`, { as: "bot", level: e.target.value })) },
      ["strong", "basic"].map((level) => h("option", { value: level, selected: seat.level === level }, t(`room.level.${level}`))));
  }

  /** Leave one's seat; during a match only once the person has said so, since a bot then plays
   * it at once (the server's answer to leaving mid-match) and the table goes on without them. */
  async function leaveSeat(n) {
    if (matchRunning()) {
      const sure = await confirmAction({
        title: t("room.leave.title"),
        text: t("room.leave.text"),
        yes: t("room.leave.yes"),
        no: t("room.leave.no"),
        testId: "leave-confirm",
      });
      if (!sure) return;
    }
    await act(() => del(`/api/rooms/${code}/seats/${n}`));
  }

  function seatRow(seat) {
    const mine = seat.kind === "person" && page.person && seat.person_id === page.person.id;
    const host = isHost();
    const buttons = [];
    if (seat.kind === null || seat.kind === undefined) {
      buttons.push(h("button", { type: "button", class: "small", "data-testid": `take-${seat.n}`,
        onclick: () => act(() => post(`/api/rooms/${code}/seats/${seat.n}`, { as: "me" })) }, t("room.seat.take")));
      if (host) {
        buttons.push(h("button", { type: "button", class: "small", "data-testid": `bot-${seat.n}`,
          onclick: () => act(() => post(`/api/rooms/${code}/seats/${seat.n}`, { as: "bot" })) }, t("room.seat.bot")));
      }
    } else if (mine) {
      buttons.push(h("button", { type: "button", class: "small", "data-testid": `leave-${seat.n}`,
        onclick: () => leaveSeat(seat.n) }, t("room.seat.leave")));
    } else if (host) {
      if (seat.kind === "bot") buttons.push(levelPicker(seat));
      buttons.push(h("button", { type: "button", class: "small", "data-testid": `remove-${seat.n}`,
        onclick: () => act(() => del(`/api/rooms/${code}/seats/${seat.n}`)) }, t("room.seat.remove")));
      if (seat.kind === "person" && matchRunning()) {
        buttons.push(h("button", { type: "button", class: "small", "data-testid": `takeover-${seat.n}`,
          title: t("room.seat.takeover_title"),
          onclick: () => act(() => post(`/api/rooms/${code}/seats/${seat.n}`, { as: "bot", replace: true })) },
          t("room.seat.takeover")));
      }
    }
    const connected = seat.kind === "bot" || seat.connected;
    return h("li", { class: ["seat-row", mine && "mine", !seat.kind && "empty"], dataset: { seat: String(seat.n) } },
      h("span", { class: "seat-no" }, t("common.seat", { n: seat.n + 1 })),
      seat.kind ? h("span", { class: ["dot", connected ? "online" : "offline"], title: t(connected ? "conn.online" : "conn.offline") }) : null,
      h("span", { class: "seat-who" },
        seat.kind ? seatLabel(seat, seat.n) : h("span", { class: "muted" }, t("room.seat.empty")),
        mine ? h("span", { class: "tag" }, t("common.you")) : null,
        seat.kind === "person" && seat.person_id === page.room.host_id ? h("span", { class: "tag" }, t("room.host")) : null,
        seat.kind === "bot" && seat.level && !host
          ? h("span", { class: "tag", "data-testid": `level-tag-${seat.n}` }, t(`room.level.${seat.level}`)) : null),
      h("span", { class: "seat-buttons" }, buttons));
  }

  /** Draw the lobby; while a press is under way, once it has ended (static/js/press.js): a
   * redraw between a press and its release would swallow the click on a seat's button. What had
   * focus keeps it (static/js/focus.js), so typing in a field goes on through the redraw. */
  function renderLobby() {
    afterPress(() => keepFocus([page.barEl, page.lobbyEl], drawLobby));
  }

  function drawLobby() {
    const room = page.room;
    if (!room) return;
    const host = isHost();
    const running = matchRunning();
    const finished = matchStatus() !== null && !running;
    const seats = room.seats || [];
    const emptySeats = seats.filter((s) => !s.kind);
    const inviteUrl = room.invite_url ? new URL(room.invite_url, location.origin).href : `${location.origin}/r/${room.code}`;
    const inviteInput = h("input", { value: inviteUrl, readonly: true, "aria-label": t("room.invite"), "data-testid": "invite-url", onfocus: (e) => e.target.select() });
    const copyButton = h("button", { type: "button", "data-testid": "copy-invite", onclick: async () => {
      try {
        await navigator.clipboard.writeText(inviteUrl);
      } catch {
        inviteInput.select();
        document.execCommand("copy");
      }
      copyButton.textContent = t("room.invite.copied");
      setTimeout(() => (copyButton.textContent = t("room.invite.copy")), 2000);
    } }, t("room.invite.copy"));
    const seated = seats.some((s) => s.kind === "person" && page.person && s.person_id === page.person.id);
    const members = room.members || [];

    const startBar = [];
    if (host && !running) {
      startBar.push(h("button", {
        type: "button", class: "primary big", "data-testid": "start", disabled: emptySeats.length > 0,
        onclick: () => act(() => post(`/api/rooms/${code}/start`)),
      }, t(finished ? "room.rematch" : "room.start")));
      if (emptySeats.length) startBar.push(h("p", { class: "help" }, t("room.need.seats")));
      if (finished && room.match && !emptySeats.length) startBar.push(sameDealsControls(room.match));
    } else if (!running && !(finished && page.hasState)) {
      // After a match the table's felt says who starts the next one.
      startBar.push(h("p", { class: "muted" }, t("room.waiting.host")));
    }

    const optionsPanel = page.game && (page.game.options_schema && Object.keys(page.game.options_schema.properties || {}).length)
      ? optionsSection(host && !running)
      : null;

    const seatCount = host && !running && page.game
      ? h("label", { class: "field inline" }, h("span", { class: "field-label" }, t("room.seats.count")),
        h("select", { "data-testid": "seat-count", onchange: (e) => changeSeatCount(Number(e.target.value)) },
          Array.from({ length: page.game.max_players - page.game.min_players + 1 }, (_, i) => page.game.min_players + i)
            .map((n) => h("option", { value: String(n), selected: n === seats.length }, t("common.players", { n })))))
      : null;

    const content = [
      h("div", { class: "lobby-head" },
        roomHeading(page.hasState ? "h2" : "h1"),
        h("a", { href: rulesHref(), target: "_blank", rel: "noopener", class: "small-link" }, t("room.rules", { game: gameName(page.game) })),
        h("div", { id: "conn-line" })),
      h("section", { class: "lobby-section" },
        h("h2", null, t("room.invite")),
        h("div", { class: "invite" }, inviteInput, copyButton),
        h("p", { class: "help" }, t("room.invite.help"))),
      h("section", { class: "lobby-section" },
        h("h2", null, t("room.seats")),
        seatCount,
        h("ul", { class: "seat-list", "data-testid": "seat-list" }, seats.map(seatRow)),
        host && emptySeats.length ? h("button", { type: "button", "data-testid": "fill-bots", onclick: fillWithBots }, t("room.seat.fill")) : null,
        !seated ? h("p", { class: "muted" }, t("room.spectator")) : null),
      h("section", { class: "lobby-section" },
        h("h2", null, t("room.members")),
        h("ul", { class: "member-list" }, members.map((m) => h("li", null,
          h("span", { class: ["dot", m.connected === false ? "offline" : "online"] }),
          m.name ?? "",
          page.voice.memberMark(m.person_id),
          m.is_host || m.person_id === room.host_id ? h("span", { class: "tag" }, t("room.host")) : null,
          seats.some((s) => s.kind === "person" && s.person_id === m.person_id) ? null : h("span", { class: "tag" }, t("room.watching")))))),
      page.voice.lobbySection(),
      optionsPanel,
      timingSection(host && !running),
      leaderboardSection(),
    ];
    replace(page.barEl, startBar);
    const showTable = page.hasState;
    if (showTable) {
      // Folded during play unless the person opened it; their choice survives redraws.
      const details = h("details", { class: "lobby-details", open: page.lobbyOpen ?? !running },
        h("summary", { onclick: () => (page.lobbyOpen = !details.open) }, roomName(room.display_name, t("room.title", { code: room.code }))), content);
      replace(page.lobbyEl, details);
    } else {
      replace(page.lobbyEl, content);
    }
    page.headingEl.hidden = !showTable;
    page.headingEl.textContent = roomName(room.display_name, t("room.title", { code: room.code }));
    renderConnection();
  }

  /** The room's name (the host renames it in place) and its game; the tab shows the name too. */
  function roomHeading(level = "h1") {
    const room = page.room;
    const name = roomName(room.display_name, t("room.title", { code: room.code }));
    setTabTitle(name);
    const game = h("span", { class: "muted small" }, gameName(page.game) || room.game_id);
    if (!isHost() || !page.renaming) {
      return h(level, { class: "room-name", "data-testid": "room-name" }, name, " ", game,
        isHost() ? h("button", { type: "button", class: "small link-button", "data-testid": "rename-room",
          onclick: () => {
            page.renaming = true;
            page.nameDraft = room.name || "";
            renderLobby();
            document.querySelector("[data-testid=room-name-input]")?.focus();
          } },
        t("room.name.edit")) : null);
    }
    // The draft survives redraws (a room message while the host types).
    const input = h("input", { value: page.nameDraft ?? room.name ?? "", maxlength: 60, "aria-label": t("room.name"),
      "data-testid": "room-name-input", oninput: (e) => (page.nameDraft = e.target.value),
      placeholder: defaultRoomName(hostName(), gameName(page.game) || room.game_id) });
    const save = (value) => act(async () => {
      const saved = await patch(`/api/rooms/${code}`, { name: value });
      page.renaming = false;
      page.nameDraft = null;
      return saved;
    });
    return h("form", { class: "inline-form rename-form", "data-testid": "rename-form",
      onsubmit: (event) => { event.preventDefault(); save(input.value.trim() ? input.value : null); } },
      h("label", { class: "field" }, h("span", { class: "field-label" }, t("room.name")), input,
        h("span", { class: "help" }, t("room.name.help"))),
      h("button", { type: "submit", class: "primary", "data-testid": "save-room-name" }, t("common.save")),
      h("button", { type: "button", onclick: () => { page.renaming = false; page.nameDraft = null; renderLobby(); } },
        t("common.cancel")));
  }

  function hostName() {
    const host = (page.room.members || []).find((m) => m.person_id === page.room.host_id);
    return host ? host.name : "";
  }

  /** Host, after a finished match: the same shuffles again, optionally one seat round. */
  function sameDealsControls(match) {
    const rotate = h("input", { type: "checkbox", checked: page.rotateDeals, "data-testid": "same-deals-rotate",
      onchange: (e) => (page.rotateDeals = e.target.checked) });
    return h("div", { class: "same-deals" },
      h("button", { type: "button", class: "big", "data-testid": "same-deals",
        title: t("room.same_deals.help", { n: match.number }),
        onclick: () => act(() => post(`/api/rooms/${code}/start`, { same_deals_as: match.id, rotate: page.rotateDeals })) },
      t("room.same_deals")),
      h("label", { class: "check" }, rotate, " ", t("room.same_deals.rotate")),
      h("p", { class: "help" }, t("room.same_deals.help", { n: match.number })));
  }

  /** The room's options; the host edits them (an unsaved draft survives redraws) and saves. */
  function optionsSection(editable) {
    const room = page.room;
    const seats = room.seats || [];
    const status = page.optionsStatus;
    const statusLine = h("p", { class: ["form-status", status && status.error && "error"], role: "status", "data-testid": "options-status" },
      status ? status.text : "");
    const editor = optionsEditor(page.game, page.plugin, editable && page.optionsDraft ? page.optionsDraft : room.options, {
      disabled: !editable,
      seats: seats.length,
      seatName: (n) => {
        const seat = seats.find((s) => s.n === n);
        return seat && seat.kind ? seatLabel(seat, n) : "";
      },
      onEdit: (options) => {
        page.optionsDraft = options;
        page.optionsStatus = null;
        replace(statusLine);
      },
    });
    const save = () => enqueue(async () => {
      page.optionsStatus = null;
      try {
        const saved = await patch(`/api/rooms/${code}`, { options: editor.read() });
        page.optionsDraft = null;
        page.optionsStatus = { text: t("room.options.saved"), error: false };
        setRoom(saved);
      } catch (error) {
        page.optionsStatus = { text: errorText(error), error: true };
        renderLobby();
      }
    });
    return h("section", { class: "lobby-section", "data-testid": "room-options" },
      h("h2", null, t("room.options")),
      editor.el,
      editable ? h("button", { type: "button", "data-testid": "save-options", onclick: save }, t("room.options.save")) : null,
      statusLine);
  }

  /** A new seat count starts the options from what is saved (a draft was made for the old count);
   * a plugin's `optionsForSeats` drops choices that only fit the old count (Familia's per-seat lists). */
  function changeSeatCount(seats) {
    return act(async () => {
      const body = { seats };
      const saved = page.room.option_overrides;
      if (page.plugin && typeof page.plugin.optionsForSeats === "function" && saved) {
        const adjusted = page.plugin.optionsForSeats({ ...saved }, seats);
        if (adjusted) body.options = adjusted;
      }
      const room = await patch(`/api/rooms/${code}`, body);
      page.optionsDraft = null;
      page.optionsStatus = null;
      return room;
    });
  }

  /** The room's absent-player grace and turn timer; the host changes them between matches
   * (each change is saved at once). */
  function timingSection(editable) {
    const room = page.room;
    const status = h("p", { class: ["form-status", page.timingStatus && page.timingStatus.error && "error"], role: "status",
      "data-testid": "timing-status" }, page.timingStatus ? page.timingStatus.text : "");
    const fields = timingFields(room, {
      disabled: !editable,
      onChange: (values) => enqueue(async () => {
        const body = {};
        if (values.away_grace !== room.away_grace) body.away_grace = values.away_grace;
        if (values.turn_timer !== room.turn_timer) body.turn_timer = values.turn_timer;
        if (values.take_backs !== room.take_backs) body.take_backs = values.take_backs;
        if (values.hints !== Boolean(room.hints)) body.hints = values.hints;
        try {
          const saved = await patch(`/api/rooms/${code}`, body);
          page.timingStatus = { text: t("room.timing.saved"), error: false };
          setRoom(saved);
        } catch (error) {
          page.timingStatus = { text: errorText(error), error: true };
          renderLobby();
        }
      }),
    });
    return h("section", { class: "lobby-section", "data-testid": "room-timing" },
      h("h2", null, t("room.timing")), fields.el, status);
  }

  function leaderboardSection() {
    const rows = normaliseLeaderboard(page.leaderboard);
    if (!rows.length) return null;
    // The chart is kept while the leaderboard is the same answer: the lobby is drawn again on
    // every table event, and a chart built anew each time would flicker.
    if (!page.boardChart || page.boardChart.data !== page.leaderboard || page.boardChart.lang !== lang()) {
      page.boardChart = { data: page.leaderboard, lang: lang(), el: leaderboardChart(rows) };
    }
    return h("section", { class: "lobby-section", "data-testid": "room-leaderboard" },
      h("h2", null, t("room.leaderboard")),
      page.boardChart.el,
      leaderboardTable(rows));
  }

  page.rerender = () => {
    if (!page.room) return start();
    page.chat.drawLabels();
    page.chat.drawLines();
    page.table.render();
    renderLobby();
  };
  redraw.current = () => page.rerender();
  start().catch((error) => replace(main, errorBox(error)));
}
