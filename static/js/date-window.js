// The date window's slider: two range handles over the months of the dataset's problem dates, above
// the form's two date inputs (which work without JavaScript, with the form's Apply button). Moving a
// handle sets its date input (the month's first day for the start, its last for the end, clamped to
// the dataset's dates) and, when released, fires the form's change, so htmx reloads the board for the
// window; the download links inside the board follow it.
(function () {
  "use strict";
  const from = document.querySelector("form.filters input[name=from]");
  const to = document.querySelector("form.filters input[name=to]");
  if (!from || !to || !from.min || !from.max) return;
  const first = from.min, last = from.max;  // YYYY-MM-DD
  const month = (date) => Number(date.slice(0, 4)) * 12 + Number(date.slice(5, 7)) - 1;
  const label = (m) => `${Math.floor(m / 12)}-${String(m % 12 + 1).padStart(2, "0")}`;
  const lo = month(first), hi = month(last);
  if (hi <= lo) return;
  const startOf = (m) => (m === lo ? first : `${label(m)}-01`);
  const endOf = (m) => {
    if (m === hi) return last;
    const days = new Date(Date.UTC(Math.floor(m / 12), m % 12 + 1, 0)).getUTCDate();
    return `${label(m)}-${String(days).padStart(2, "0")}`;
  };

  const box = document.createElement("div");
  box.className = "date-slider";
  box.innerHTML = '<span class="date-slider-label">Contest months in the window</span>' +
    '<label>from <input type="range" aria-label="window start (month)"></label>' +
    '<label>to <input type="range" aria-label="window end (month)"></label>' +
    '<output aria-live="polite"></output>';
  const [start, end] = box.querySelectorAll("input");
  const shown = box.querySelector("output");
  for (const handle of [start, end]) { handle.min = lo; handle.max = hi; handle.step = 1; }
  start.value = from.value ? month(from.value) : lo;
  end.value = to.value ? month(to.value) : hi;

  function show() {
    shown.textContent = `${label(Number(start.value))} to ${label(Number(end.value))}`;
  }
  function moved(event) {
    // the handles never cross: the one moved pushes the other
    if (Number(start.value) > Number(end.value)) {
      if (event.target === start) end.value = start.value; else start.value = end.value;
    }
    const s = Number(start.value), e = Number(end.value);
    from.value = s === lo ? "" : startOf(s);  // the dataset's first month: no lower bound
    to.value = e === hi ? "" : endOf(e);
    show();
  }
  function released() { from.dispatchEvent(new Event("change", {bubbles: true})); }
  for (const handle of [start, end]) {
    handle.addEventListener("input", moved);
    handle.addEventListener("change", released);
  }
  show();
  from.closest("label").before(box);
})();
