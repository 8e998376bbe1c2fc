/**
 * JSON over HTTP to the server's REST API (docs/ARCHITECTURE.md). The session cookie travels
 * automatically; a non-2xx answer becomes an ApiError carrying the server's readable `detail`.
 */

export class ApiError extends Error {
  /** `messages` is the server's `{en, ja}` wording of the same error, when it sends one. */
  constructor(status, detail, messages) {
    super(detail || `HTTP ${status}`);
    this.status = status;
    this.detail = detail;
    this.messages = messages || null;
  }
}

function describe(detail) {
  if (typeof detail === "string") return detail;
  if (Array.isArray(detail)) {
    // FastAPI validation errors: a list of {loc, msg}.
    return detail.map((d) => (d && d.msg ? `${(d.loc || []).slice(1).join(".")}: ${d.msg}` : JSON.stringify(d))).join("; ");
  }
  return detail ? JSON.stringify(detail) : "";
}

export async function api(method, path, body) {
  const init = { method, credentials: "same-origin", headers: { Accept: "application/json" } };
  if (body !== undefined) {
    init.headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  const response = await fetch(path, init);
  if (response.status === 204) return null;
  let data = null;
  const text = await response.text();
  if (text) {
    try {
      data = JSON.parse(text);
    } catch {
      data = { detail: text };
    }
  }
  if (!response.ok) {
    throw new ApiError(response.status, describe(data && data.detail) || response.statusText, data && data.messages);
  }
  return data;
}

export const get = (path) => api("GET", path);
export const post = (path, body) => api("POST", path, body ?? {});
export const patch = (path, body) => api("PATCH", path, body ?? {});
export const del = (path) => api("DELETE", path);

/** The signed-in person, or null when there is none yet (401). */
export async function me() {
  try {
    return await get("/api/me");
  } catch (error) {
    if (error instanceof ApiError && error.status === 401) return null;
    throw error;
  }
}

let catalog = null;

/** The game catalog (`GET /api/games`), fetched once per page load. */
export async function games() {
  if (!catalog) catalog = get("/api/games");
  try {
    return await catalog;
  } catch (error) {
    catalog = null;
    throw error;
  }
}

export async function gameById(id) {
  return (await games()).find((game) => game.id === id) || null;
}
