// Resumable weight upload: hashes the file (SHA-256), creates or resumes an upload through the API,
// PUTs each missing part (File.slice + fetch) and completes it. The upload id is kept per file in
// localStorage, so choosing the same file again after a failure (or a reload) sends only the parts not
// received. The button is disabled while an upload runs, so one click never starts two.
(function () {
  "use strict";
  const box = document.getElementById("resumable-upload");
  if (!box || !window.crypto || !crypto.subtle || !window.fetch) return;
  box.hidden = false;
  const api = box.dataset.api;
  const input = document.getElementById("upload-file");
  const progress = document.getElementById("upload-progress");
  const status = document.getElementById("upload-status");
  const button = document.getElementById("upload-start");
  const csrf = (document.querySelector("[name=csrfmiddlewaretoken]") || {}).value || "";

  function say(text) { status.textContent = text; }

  async function call(method, url, body, type) {
    const response = await fetch(url, {method, body, credentials: "same-origin",
      headers: {"X-CSRFToken": csrf, "Content-Type": type || "application/json"}});
    const data = await response.json().catch(() => ({}));
    if (!response.ok) throw new Error(data.detail || JSON.stringify(data) || response.statusText);
    return data;
  }

  async function sha256(file) {
    // Whole-file digest (browsers have no incremental SHA-256); fine for archives that fit in memory.
    const digest = await crypto.subtle.digest("SHA-256", await file.arrayBuffer());
    return Array.from(new Uint8Array(digest)).map((b) => b.toString(16).padStart(2, "0")).join("");
  }

  async function upload(file) {
    say("Computing the checksum…");
    const digest = await sha256(file);
    const remembered = "upload:" + digest + ":" + file.size;
    let upload = null;
    const known = localStorage.getItem(remembered);
    if (known) {
      upload = await call("GET", api + known + "/").catch(() => null);
    }
    if (!upload || upload.status === "complete" && !known) {
      upload = await call("POST", api, JSON.stringify({filename: file.name, size: file.size, sha256: digest}));
      localStorage.setItem(remembered, upload.id);
    }
    const have = new Set(upload.parts_received);
    progress.max = upload.part_count;
    progress.value = have.size;
    for (let n = 1; n <= upload.part_count; n++) {
      if (have.has(n)) continue;
      const start = (n - 1) * upload.part_size;
      say("Sending part " + n + " of " + upload.part_count + "…");
      await call("PUT", api + upload.id + "/parts/" + n + "/", file.slice(start, start + upload.part_size), "application/octet-stream");
      progress.value += 1;
    }
    if (upload.status !== "complete") await call("POST", api + upload.id + "/complete/");
    localStorage.removeItem(remembered);
    say("Upload #" + upload.id + " complete. ");
    const link = document.createElement("a");
    link.href = box.dataset.register;
    link.textContent = "Register a model with it";
    status.append(link);
  }

  button.addEventListener("click", () => {
    const file = input.files[0];
    if (!file) { say("Choose the archive first."); return; }
    button.disabled = true;
    upload(file)
      .catch((error) => say("Stopped: " + error.message.replace(/\.?$/, ".") + " Choose the same file again to resume."))
      .finally(() => { button.disabled = false; });
  });
})();
