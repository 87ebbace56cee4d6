// The REST API as the page uses it: the token (typed once, kept in this tab's session
// storage, sent as a bearer header, never in a URL) and JSON calls with readable errors.

const TOKEN_KEY = "benchApiToken";
let onUnauthorized = () => {};

export const auth = {
  get: () => sessionStorage.getItem(TOKEN_KEY),
  set: (token) => sessionStorage.setItem(TOKEN_KEY, token),
  clear: () => sessionStorage.removeItem(TOKEN_KEY),
  onUnauthorized(fn) {
    onUnauthorized = fn;
  },
  refused() {
    sessionStorage.removeItem(TOKEN_KEY);
    onUnauthorized();
  },
};

export class ApiError extends Error {
  constructor(status, message, body = null) {
    super(message);
    this.status = status;
    this.body = body;
  }
}

function headers(extra = {}) {
  const token = auth.get();
  if (!token) throw new ApiError(401, "Type the API token first.");
  return { Authorization: `Bearer ${token}`, ...extra };
}

// fetch with the token; 401 clears it and shows the sign-in form.
export async function request(path, { method = "GET", body, secret, accept } = {}) {
  const extra = {};
  if (body !== undefined) extra["Content-Type"] = "application/json";
  if (secret) extra["X-Bench-Run-Secret"] = secret;
  if (accept) extra.Accept = accept;
  let response;
  try {
    response = await fetch(path, {
      method,
      headers: headers(extra),
      body: body === undefined ? undefined : JSON.stringify(body),
      cache: "no-store",
    });
  } catch (err) {
    throw new ApiError(0, `The API did not answer (${err.message}).`);
  }
  if (response.status === 401) {
    auth.refused();
    throw new ApiError(401, "The API token was refused; type it again.");
  }
  return response;
}

export async function api(path, options = {}) {
  const response = await request(path, options);
  const text = await response.text();
  let data = null;
  if (text) {
    try {
      data = JSON.parse(text);
    } catch {
      data = null;
    }
  }
  if (!response.ok) {
    const message = (data && data.error) || `HTTP ${response.status} from ${path}`;
    throw new ApiError(response.status, message, data);
  }
  return data;
}

// Open an artifact: archived files come as a presigned URL (X-Artifact-Download-Url), the rest
// as a body we turn into a blob, because a plain link could not send the token.
export async function openArtifact(path, { download = false, filename = "" } = {}) {
  const url = download ? `${path}${path.includes("?") ? "&" : "?"}download=1` : path;
  const response = await request(url);
  if (!response.ok) {
    let message = `HTTP ${response.status}`;
    try {
      message = (await response.json()).error || message;
    } catch {
      /* keep the status */
    }
    throw new ApiError(response.status, message);
  }
  const presigned = response.headers.get("X-Artifact-Download-Url");
  if (presigned) {
    window.open(presigned, "_blank", "noopener");
    return;
  }
  const blob = await response.blob();
  const objectUrl = URL.createObjectURL(blob);
  if (download) {
    const link = document.createElement("a");
    link.href = objectUrl;
    link.download = filename || path.split("/").pop();
    document.body.append(link);
    link.click();
    link.remove();
  } else {
    window.open(objectUrl, "_blank", "noopener");
  }
  setTimeout(() => URL.revokeObjectURL(objectUrl), 60_000);
}
