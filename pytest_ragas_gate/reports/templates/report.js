// The case table and the case panel of the RAG gate's HTML report.
// Every string from the report reaches the page through textContent or an attribute set
// with setAttribute, never as markup, so a case's text can never become an element.
(function () {
  "use strict";

  var PAGE_SIZE = 50;
  var STATUS_LABELS = {
    error: "errored",
    fail: "failed",
    below: "below threshold",
    pass: "passed"
  };
  // An errored case says why (cache miss, timeout, budget) where it can.
  function statusLabel(item) {
    return item.cause || STATUS_LABELS[item.status] || item.status;
  }
  var CORE_DETAILS = ["faithfulness", "context_precision", "context_recall"];

  // A large page carries its cases gzipped; the browser inflates them before the table
  // is drawn (the verdict and the cards are plain HTML and show at once).
  function inflate(base64) {
    var binary = atob(base64);
    var bytes = new Uint8Array(binary.length);
    for (var index = 0; index < binary.length; index += 1) { bytes[index] = binary.charCodeAt(index); }
    var stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"));
    return new Response(stream).text();
  }

  var payload = JSON.parse(document.getElementById("rag-gate-data").textContent);
  if (payload.packed) {
    document.getElementById("case-count").textContent = "Loading the cases…";
    if (typeof DecompressionStream === "undefined") {
      document.getElementById("case-count").textContent =
        "This browser cannot unpack the cases (no DecompressionStream); the JSON report holds them.";
      return;
    }
    inflate(payload.packed).then(function (text) {
      payload.cases = JSON.parse(text);
      delete payload.packed;
      main(payload);
    });
  } else {
    main(payload);
  }

  function main(data) {
  var metrics = data.metrics;
  var cases = data.cases;
  var metricByName = {};
  metrics.forEach(function (metric) { metricByName[metric.name] = metric; });
  var caseByAnchor = {};

  cases.forEach(function (item, index) {
    item.rank = index;
    caseByAnchor[item.anchor] = item;
    var errors = item.errors ? Object.keys(item.errors).map(function (k) { return item.errors[k]; }) : [];
    item.haystack = [
      item.id, item.source, item.question || "", item.answer || "", item.error || "",
      (item.tags || []).join(" "), errors.join(" ")
    ].join("\n").toLowerCase();
  });

  // "worst Δ" is the largest drop of a gated metric when some metric is gated: a metric
  // only reported, hidden by default, must not put its drop in the column.
  var gatedByThreshold = metrics.filter(function (metric) { return typeof metric.threshold === "number"; })
    .map(function (metric) { return metric.name; });
  cases.forEach(function (item) {
    item.drop = null;
    item.dropMetric = null;
    Object.keys(item.deltas || {}).forEach(function (name) {
      if (gatedByThreshold.length && gatedByThreshold.indexOf(name) < 0) { return; }
      var pair = item.deltas[name];
      var metric = metricByName[name];
      var worse = metric && metric.direction === "max" ? pair[1] - pair[0] : pair[0] - pair[1];
      if (item.drop === null || worse > item.drop) { item.drop = worse; item.dropMetric = name; }
    });
  });

  var hasLatency = cases.some(function (item) { return typeof item.latency_s === "number"; });
  var hasDeltas = cases.some(function (item) { return item.drop !== null; });
  var hasDiagnosis = cases.some(function (item) { return Boolean(item.diagnosis); });

  var hasBaseline = Boolean(data.baseline);
  // A metric some case can be below: gated, or gated by a case's own threshold.
  var gatedNames = metrics.filter(function (metric) {
    return typeof metric.threshold === "number" || cases.some(function (item) { return (item.misses || []).indexOf(metric.name) >= 0; });
  }).map(function (metric) { return metric.name; });

  var state = {
    text: "", tag: "", miss: "", status: "", changed: false, range: null,
    sort: "rank", descending: false, page: 0, shown: null
  };

  // --- small DOM helpers --------------------------------------------------------------

  function element(tag, className, text) {
    var node = document.createElement(tag);
    if (className) { node.className = className; }
    if (text !== undefined && text !== null) { node.textContent = String(text); }
    return node;
  }

  function append(parent, children) {
    children.forEach(function (child) { if (child) { parent.appendChild(child); } });
    return parent;
  }

  // A metric name may break after an underscore, never inside a word.
  function metricName(tag, className, name) {
    var node = element(tag, className);
    String(name).split("_").forEach(function (part, index) {
      if (index) { append(node, [document.createTextNode("_"), document.createElement("wbr")]); }
      node.appendChild(document.createTextNode(part));
    });
    return node;
  }

  // Whether a human label and the judge's score disagree: on opposite sides of the
  // threshold when there is one, else half the scale apart.
  function disagrees(score, label, threshold, metric) {
    if (typeof score !== "number" || typeof label !== "number") { return false; }
    if (threshold) {
      var max = metric && metric.direction === "max";
      var judged = max ? score <= threshold.value + 1e-9 : score + 1e-9 >= threshold.value;
      var labelled = max ? label <= threshold.value + 1e-9 : label + 1e-9 >= threshold.value;
      return judged !== labelled;
    }
    return Math.abs(score - label) >= 0.5;
  }

  function formatScore(value) {
    return typeof value === "number" ? value.toFixed(3) : "–";
  }

  function signed(value) {
    return (value >= 0 ? "+" : "−") + Math.abs(value).toFixed(3);
  }

  function diagnosisText(diagnosis) {
    if (!diagnosis) { return ""; }
    if (typeof diagnosis === "string") { return diagnosis; }
    return diagnosis.component || "";
  }

  function thresholdFor(item, name) {
    var own = item.thresholds && typeof item.thresholds[name] === "number";
    if (own) { return { value: item.thresholds[name], own: true }; }
    var metric = metricByName[name];
    if (metric && typeof metric.threshold === "number") { return { value: metric.threshold, own: false }; }
    return null;
  }

  // --- the table ----------------------------------------------------------------------

  // Status, case, the diagnosis and the gated metrics come first; the column chooser shows
  // or hides the rest (metrics only reported start hidden when some metric is gated).
  function allColumns() {
    var list = [
      { key: "rank", label: "status", always: true },
      { key: "id", label: "case", always: true }
    ];
    if (hasDiagnosis) { list.push({ key: "diagnosis", label: "diagnosis" }); }
    var gated = metrics.filter(function (metric) { return gatedNames.indexOf(metric.name) >= 0; });
    var reported = metrics.filter(function (metric) { return gatedNames.indexOf(metric.name) < 0; });
    gated.forEach(function (metric) { list.push({ key: "metric:" + metric.name, label: metric.name, metric: metric }); });
    if (hasDeltas) { list.push({ key: "drop", label: gatedByThreshold.length ? "worst gated Δ" : "worst Δ" }); }
    list.push({ key: "tags", label: "tags", fixed: true });
    reported.forEach(function (metric) {
      list.push({ key: "metric:" + metric.name, label: metric.name, metric: metric, hiddenByDefault: gated.length > 0 });
    });
    if (hasLatency) { list.push({ key: "latency", label: "latency" }); }
    return list;
  }

  function isShown(column) {
    if (column.always) { return true; }
    if (state.shown) { return state.shown.indexOf(column.key) >= 0; }
    return !column.hiddenByDefault;
  }

  function columns() {
    return allColumns().filter(isShown);
  }

  function sortValue(item, key) {
    if (key === "rank") { return item.rank; }
    if (key === "id") { return String(item.id).toLowerCase(); }
    if (key === "latency") { return typeof item.latency_s === "number" ? item.latency_s : null; }
    if (key === "drop") { return item.drop; }
    if (key === "diagnosis") { return diagnosisText(item.diagnosis) || null; }
    var name = key.slice("metric:".length);
    if (item.errors && item.errors[name] !== undefined) { return null; }
    var score = item.scores ? item.scores[name] : undefined;
    return typeof score === "number" ? score : null;
  }

  // The first click on a column shows its worst cases first.
  function worstFirstIsDescending(key) {
    if (key === "latency" || key === "drop") { return true; }
    if (key.indexOf("metric:") === 0) {
      var metric = metricByName[key.slice("metric:".length)];
      return Boolean(metric && metric.direction === "max");
    }
    return false;
  }

  // A histogram bar's bin: [low, high), the last one closed at 1 as the chart counts it.
  function inRange(item, range) {
    if (item.errors && item.errors[range.metric] !== undefined) { return false; }
    var score = item.scores ? item.scores[range.metric] : undefined;
    if (typeof score !== "number") { return false; }
    var bin = Math.min(9, Math.max(0, Math.floor(score * 10)));
    return bin === Math.round(range.low * 10);
  }

  function visibleCases() {
    var text = state.text.trim().toLowerCase();
    var shown = cases.filter(function (item) {
      if (state.tag && (item.tags || []).indexOf(state.tag) < 0) { return false; }
      if (state.miss && (item.misses || []).indexOf(state.miss) < 0) { return false; }
      if (state.changed && !item.base) { return false; }
      if (state.range && !inRange(item, state.range)) { return false; }
      if (state.status === "problem") {
        if (item.status === "pass") { return false; }
      } else if (state.status && item.status !== state.status) {
        return false;
      }
      return !text || item.haystack.indexOf(text) >= 0;
    });
    var key = state.sort;
    // The cases are in rank order already, and filtering keeps it.
    if (key === "rank" && !state.descending) { return shown; }
    var direction = state.descending ? -1 : 1;
    // Each case's sort value is read once, not once per comparison: 20,000 cases sort in
    // a few tens of milliseconds.
    var keyed = shown.map(function (item) { return { item: item, value: sortValue(item, key) }; });
    keyed.sort(function (a, b) {
      var left = a.value;
      var right = b.value;
      // Unscored cases (n/a, errored) go last whichever way the column is sorted.
      if (left === null && right !== null) { return 1; }
      if (right === null && left !== null) { return -1; }
      if (left !== null && left !== right) { return (left < right ? -1 : 1) * direction; }
      return a.item.rank - b.item.rank;
    });
    return keyed.map(function (entry) { return entry.item; });
  }

  // On a phone the table is a list of cards with no header row to click: a select sorts.
  var sortOptionsFor = null;
  function renderSortSelect(shownColumns) {
    var select = document.getElementById("sort-select");
    var sortable = shownColumns.filter(function (column) { return !column.fixed && column.key !== "id"; });
    var key = sortable.map(function (column) { return column.key; }).join(",");
    // The options change only with the columns shown; each render just selects one.
    if (key !== sortOptionsFor) {
      sortOptionsFor = key;
      select.textContent = "";
      sortable.forEach(function (column) {
        var option = element("option", "", column.key === "rank" ? "worst first" : column.label);
        option.value = column.key;
        select.appendChild(option);
      });
    }
    if (select.value !== state.sort) { select.value = state.sort; }
  }

  function renderHead() {
    var shownColumns = columns();
    renderSortSelect(shownColumns);
    var row = document.getElementById("case-head");
    row.textContent = "";
    shownColumns.forEach(function (column) {
      var cell = element("th", column.key === "id" ? "case-cell" : "");
      cell.setAttribute("scope", "col");
      if (column.fixed) {
        cell.textContent = column.label;
      } else {
        var button = element("button", "sort", column.label);
        button.type = "button";
        button.setAttribute("data-sort", column.key);
        button.addEventListener("click", function () { sortBy(column.key); });
        cell.appendChild(button);
        if (state.sort === column.key && column.key !== "rank") {
          cell.setAttribute("aria-sort", state.descending ? "descending" : "ascending");
        }
      }
      row.appendChild(cell);
    });
  }

  function scoreCell(item, metric) {
    var cell = element("td", "score");
    var name = metric.name;
    if (item.error || (item.errors && item.errors[name] !== undefined)) {
      cell.className += " err";
      cell.textContent = "error";
      cell.title = item.errors && item.errors[name] ? String(item.errors[name]).split("\n")[0] : String(item.error || "");
      return cell;
    }
    if (!item.scores || !(name in item.scores)) {
      cell.className += " na";
      cell.textContent = "";
      return cell;
    }
    var score = item.scores[name];
    if (score === null) {
      cell.className += " na";
      cell.textContent = "n/a";
    } else {
      cell.textContent = formatScore(score);
      if ((item.misses || []).indexOf(name) >= 0) { cell.className += " miss"; }
    }
    if (item.reasons && item.reasons[name]) { cell.title = item.reasons[name]; }
    return cell;
  }

  function cellFor(item, column) {
    var cell;
    if (column.key === "rank") {
      cell = element("td");
      cell.appendChild(element("span", "status status-" + item.status, statusLabel(item)));
    } else if (column.key === "id") {
      cell = element("td", "case-cell");
      var link = element("a", "case-link", item.id);
      link.setAttribute("href", "#" + item.anchor);
      append(cell, [link, element("div", "question", item.question || ""), element("div", "muted", item.source)]);
      if (item.base) { cell.appendChild(element("span", "changed-mark", item.base["new"] ? "new since baseline" : "changed since baseline")); }
    } else if (column.key === "tags") {
      cell = element("td");
      (item.tags || []).forEach(function (tag) { cell.appendChild(element("span", "tag", tag)); });
    } else if (column.metric) {
      cell = scoreCell(item, column.metric);
    } else if (column.key === "latency") {
      cell = element("td", "score", typeof item.latency_s === "number" ? item.latency_s.toFixed(2) + " s" : "");
    } else if (column.key === "drop") {
      cell = element("td", "score", item.drop === null ? "" : signed(-item.drop));
      if (item.drop !== null && item.drop > 1e-9) { cell.className += " miss"; }
      if (item.dropMetric) { cell.title = item.dropMetric; }
    } else {
      cell = element("td", "", diagnosisText(item.diagnosis));
    }
    // On a phone each row is a card and each cell says what it is.
    cell.setAttribute("data-label", column.label);
    return cell;
  }

  function renderRow(item, shownColumns) {
    var row = element("tr");
    row.setAttribute("data-key", item.key);
    row.setAttribute("data-status", item.status);
    shownColumns.forEach(function (column) { row.appendChild(cellFor(item, column)); });
    return row;
  }

  function renderColumnChooser() {
    var list = document.getElementById("column-list");
    if (!list || list.childNodes.length) { return; }
    allColumns().forEach(function (column) {
      if (column.always) { return; }
      var label = element("label", "check");
      var box = element("input");
      box.type = "checkbox";
      box.setAttribute("data-column", column.key);
      box.checked = isShown(column);
      box.addEventListener("change", function () {
        state.shown = [];
        list.querySelectorAll("input[data-column]").forEach(function (input) {
          if (input.checked) { state.shown.push(input.getAttribute("data-column")); }
        });
        render();
      });
      append(label, [box, document.createTextNode(" " + column.label)]);
      list.appendChild(label);
    });
  }

  function render() {
    var shown = visibleCases();
    var pages = Math.max(1, Math.ceil(shown.length / PAGE_SIZE));
    state.page = Math.min(state.page, pages - 1);
    var start = state.page * PAGE_SIZE;
    var body = document.getElementById("case-rows");
    var fragment = document.createDocumentFragment();
    var shownColumns = columns();
    shown.slice(start, start + PAGE_SIZE).forEach(function (item) { fragment.appendChild(renderRow(item, shownColumns)); });
    body.textContent = "";
    body.appendChild(fragment);
    if (!shown.length) {
      var empty = element("tr");
      var cell = element("td", "muted", "No case matches these filters.");
      cell.colSpan = columns().length;
      body.appendChild(append(empty, [cell]));
    }
    renderHead();
    document.getElementById("case-count").textContent =
      shown.length + " of " + cases.length + " case(s)";
    document.getElementById("page-info").textContent = shown.length
      ? "cases " + (start + 1) + "–" + Math.min(start + PAGE_SIZE, shown.length) + " of " + shown.length +
        " (page " + (state.page + 1) + " of " + pages + ")"
      : "";
    document.getElementById("page-prev").disabled = state.page === 0;
    document.getElementById("page-next").disabled = state.page >= pages - 1;
    var chip = document.getElementById("filter-range");
    chip.hidden = !state.range;
    if (state.range) {
      document.getElementById("filter-range-text").textContent =
        state.range.metric + " from " + state.range.low.toFixed(1) + " to " + state.range.high.toFixed(1);
    }
    writeUrl();
    if (typeof queueHead === "function") { queueHead(); }
  }

  // --- filter and sort in the URL -----------------------------------------------------
  // The query string holds them (the fragment opens a case), so a link or a reload shows
  // the same table.

  function writeUrl() {
    var params = [];
    function put(name, value) { params.push(name + "=" + encodeURIComponent(value)); }
    if (state.text) { put("q", state.text); }
    if (state.tag) { put("tag", state.tag); }
    if (state.miss) { put("miss", state.miss); }
    if (state.status) { put("status", state.status); }
    if (state.changed) { put("changed", "1"); }
    if (state.range) { put("range", state.range.metric + ":" + state.range.low.toFixed(1)); }
    if (state.sort !== "rank") { put("sort", state.sort); }
    if (state.descending) { put("desc", "1"); }
    if (state.page) { put("page", String(state.page + 1)); }
    if (state.shown) { put("cols", state.shown.join(",")); }
    var search = params.length ? "?" + params.join("&") : "";
    if (search === window.location.search) { return; }
    try {
      window.history.replaceState(window.history.state, "", window.location.pathname + search + window.location.hash);
    } catch (error) {
      // A page opened where the URL cannot change keeps working without it.
    }
  }

  function readUrl() {
    var query = window.location.search.replace(/^\?/, "");
    if (!query) { return; }
    query.split("&").forEach(function (pair) {
      var at = pair.indexOf("=");
      var name = at < 0 ? pair : pair.slice(0, at);
      var value = "";
      try { value = decodeURIComponent((at < 0 ? "" : pair.slice(at + 1)).replace(/\+/g, " ")); } catch (error) { return; }
      if (name === "q") { state.text = value; }
      else if (name === "tag") { state.tag = value; }
      else if (name === "miss" && metricByName[value]) { state.miss = value; }
      else if (name === "status") { state.status = value; }
      else if (name === "changed") { state.changed = value === "1"; }
      else if (name === "range") {
        var parts = value.split(":");
        var low = parseFloat(parts.pop());
        var metric = parts.join(":");
        if (metricByName[metric] && low >= 0 && low < 1) { state.range = { metric: metric, low: low, high: Math.round(low * 10 + 1) / 10 }; }
      }
      else if (name === "sort") { state.sort = value; }
      else if (name === "desc") { state.descending = value === "1"; }
      else if (name === "page") { state.page = Math.max(0, (parseInt(value, 10) || 1) - 1); }
      else if (name === "cols") { state.shown = value ? value.split(",") : []; }
    });
    var controls = { "filter-text": state.text, "filter-tag": state.tag, "filter-miss": state.miss, "filter-status": state.status };
    Object.keys(controls).forEach(function (id) {
      var control = document.getElementById(id);
      if (control) { control.value = controls[id]; }
    });
    var changed = document.getElementById("filter-changed");
    if (changed) { changed.checked = state.changed; }
  }

  function showCases() {
    state.page = 0;
    render();
    var section = document.getElementById("cases");
    if (section.scrollIntoView) { section.scrollIntoView({ block: "start" }); }
  }

  function sortBy(key) {
    if (state.sort === key) {
      state.descending = !state.descending;
    } else {
      state.sort = key;
      state.descending = worstFirstIsDescending(key);
    }
    state.page = 0;
    render();
  }

  // --- the case panel -----------------------------------------------------------------

  function section(title, children) {
    var wrapper = element("section", "panel-section");
    wrapper.appendChild(element("h3", "", title));
    return append(wrapper, children);
  }

  function itemList(entries) {
    var list = element("ol", "items");
    entries.forEach(function (entry) {
      var li = element("li", "item-" + entry.tone);
      if (entry.attributes) {
        Object.keys(entry.attributes).forEach(function (name) { li.setAttribute(name, entry.attributes[name]); });
      }
      var head = element("div", "body");
      append(head, [element("span", "label", entry.label)]);
      // A source's id is shown as written: the label's capitals would change it.
      if (entry.id) { append(head, [element("span", "source-id", entry.id)]); }
      head.appendChild(document.createTextNode(entry.text));
      li.appendChild(head);
      var reason = withoutVerdict(entry.reason, entry.verdict);
      if (reason) { li.appendChild(element("div", "reason", reason)); }
      list.appendChild(li);
    });
    return list;
  }

  // Judges often open a reason with the verdict it explains ("contradicted: …"); a label
  // or tooltip that already says the verdict keeps only the rest.
  function withoutVerdict(reason, verdict) {
    var text = String(reason || "").trim();
    if (!verdict) { return text; }
    var prefix = String(verdict).toLowerCase() + ":";
    while (text.toLowerCase().indexOf(prefix) === 0) { text = text.slice(prefix.length).trim(); }
    return text;
  }

  function claimTone(claim) {
    var verdict = claim.verdict || (claim.supported ? "supported" : "not_in_context");
    if (verdict === "supported") { return { verdict: verdict, tone: "good", label: "supported" }; }
    if (verdict === "contradicted") { return { verdict: verdict, tone: "bad", label: "contradicted" }; }
    return { verdict: verdict, tone: "unknown", label: claim.verdict ? String(verdict).replace(/_/g, " ") : "unsupported" };
  }

  function normalStatement(text) {
    return String(text || "").toLowerCase().replace(/[^\p{L}\p{N}]+/gu, " ").trim();
  }

  function highlightedAnswer(item, claims) {
    var answer = item.answer || "";
    var paragraph = element("p", "text answer");
    var cursor = 0;
    (item.segments || []).forEach(function (segment) {
      var claim = claims[segment[2]];
      if (!claim || segment[0] < cursor) { return; }
      paragraph.appendChild(document.createTextNode(answer.slice(cursor, segment[0])));
      var tone = claimTone(claim);
      var span = element("span", "claim verdict-" + tone.verdict, answer.slice(segment[0], segment[1]));
      span.setAttribute("data-verdict", tone.verdict);
      var reason = withoutVerdict(claim.reason, tone.label);
      span.title = tone.label + (reason ? ": " + reason : "");
      span.appendChild(element("sup", "", String(segment[2] + 1)));
      paragraph.appendChild(span);
      cursor = segment[1];
    });
    paragraph.appendChild(document.createTextNode(answer.slice(cursor)));
    return paragraph;
  }

  function verdictLines(item) {
    var lines = [];
    Object.keys(item.scores || {}).forEach(function (name) {
      var score = item.scores[name];
      var threshold = thresholdFor(item, name);
      if (typeof score !== "number" || !threshold || (item.misses || []).indexOf(name) < 0) { return; }
      var metric = metricByName[name];
      var max = metric && metric.direction === "max";
      lines.push(name + " " + score.toFixed(2) + (max ? " > " : " < ") + threshold.value.toFixed(2) +
        (threshold.own ? " (case " + (max ? "max" : "min") + ")" : " (gate threshold)"));
    });
    return lines;
  }

  function scoresTable(item) {
    var table = element("table", "scores");
    var head = element("tr");
    var human = item.human && Object.keys(item.human).length ? item.human : null;
    ["metric", "score", "threshold", "verdict", "reason"].concat(human ? ["human label"] : [], item.deltas ? ["vs baseline"] : []).forEach(function (label) {
      head.appendChild(element("th", "", label));
    });
    table.appendChild(append(element("thead"), [head]));
    var body = element("tbody");
    var names = metrics.map(function (metric) { return metric.name; }).filter(function (name) {
      return (item.scores && name in item.scores) || (item.errors && name in item.errors);
    });
    if (!names.length) {
      return element("p", "muted no-scores", item.error ? "No metric was scored: the case errored before judging (see Error above)." : "No metric was scored.");
    }
    names.forEach(function (name) {
      var row = element("tr");
      row.setAttribute("data-metric", name);
      var score = item.scores ? item.scores[name] : undefined;
      var threshold = thresholdFor(item, name);
      var errored = item.errors && name in item.errors;
      var missed = (item.misses || []).indexOf(name) >= 0;
      var verdict = errored ? "error" : score === null ? "n/a" : !threshold ? "reported" : missed ? "below" : "ok";
      var metric = metricByName[name];
      var reason = element("td", "reason", (item.reasons && item.reasons[name]) || "");
      reason.setAttribute("data-label", "reason");
      append(row, [
        metricName("th", "", name),
        element("td", missed ? "miss" : "", errored ? "error" : score === null ? "n/a" : formatScore(score)),
        element("td", "", threshold ? (metric && metric.direction === "max" ? "≤ " : "≥ ") + threshold.value.toFixed(2) + (threshold.own ? " (case)" : "") : "–"),
        element("td", missed ? "alarm" : "", verdict),
        reason
      ]);
      if (human) {
        var label = human[name];
        var humanCell = element("td", "human", typeof label === "number" ? formatScore(label) : "–");
        humanCell.setAttribute("data-label", "human label");
        if (!errored && disagrees(score, label, threshold, metric)) {
          humanCell.className += " disagree";
          row.className = "disagree";
          humanCell.appendChild(element("span", "disagree-note", " judge and human disagree"));
        }
        row.appendChild(humanCell);
      }
      if (item.deltas) {
        var pair = item.deltas[name];
        var change = element("td", "", pair ? formatScore(pair[0]) + " → " + formatScore(pair[1]) + " (" + signed(pair[1] - pair[0]) + ")" : "–");
        change.setAttribute("data-label", "vs baseline");
        row.appendChild(change);
      }
      body.appendChild(row);
    });
    table.appendChild(body);
    return table;
  }

  function genericDetails(items) {
    return itemList(items.map(function (detail) {
      var parts = Object.keys(detail).filter(function (key) { return key !== "reason"; }).map(function (key) {
        var value = detail[key];
        return key + ": " + (typeof value === "object" ? JSON.stringify(value) : String(value));
      });
      return { tone: "unknown", label: "", text: parts.join(" · "), reason: detail.reason ? String(detail.reason) : "" };
    }));
  }

  // --- what changed since the baseline -------------------------------------------------

  // The words of two answers as runs kept, removed and added: the longest common
  // subsequence of their words (whitespace kept), the way a word-level diff reads.
  function wordDiff(before, after) {
    var a = before.split(/(\s+)/).filter(function (part) { return part !== ""; });
    var b = after.split(/(\s+)/).filter(function (part) { return part !== ""; });
    if (a.length * b.length > 4000000) { return null; }
    var rows = [];
    for (var i = 0; i <= a.length; i += 1) { rows.push(new Int32Array(b.length + 1)); }
    for (i = a.length - 1; i >= 0; i -= 1) {
      for (var j = b.length - 1; j >= 0; j -= 1) {
        rows[i][j] = a[i] === b[j] ? rows[i + 1][j + 1] + 1 : Math.max(rows[i + 1][j], rows[i][j + 1]);
      }
    }
    var runs = [];
    function push(kind, text) {
      var last = runs[runs.length - 1];
      if (last && last.kind === kind) { last.text += text; } else { runs.push({ kind: kind, text: text }); }
    }
    i = 0;
    j = 0;
    while (i < a.length || j < b.length) {
      if (i < a.length && j < b.length && a[i] === b[j]) { push("same", a[i]); i += 1; j += 1; }
      else if (j < b.length && (i >= a.length || rows[i][j + 1] >= rows[i + 1][j])) { push("added", b[j]); j += 1; }
      else { push("removed", a[i]); i += 1; }
    }
    return runs;
  }

  // The verdict of the claims an added run of the new answer falls in, worst first: an
  // added hallucination is coloured as one, not as a welcome addition.
  var VERDICT_RANK = { contradicted: 0, not_in_context: 1, supported: 2 };
  function addedVerdict(item, start, end) {
    var claims = item && item.details && Array.isArray(item.details.faithfulness) ? item.details.faithfulness : [];
    var worst = null;
    (item && item.segments || []).forEach(function (segment) {
      var claim = claims[segment[2]];
      if (!claim || segment[1] <= start || segment[0] >= end) { return; }
      var verdict = claimTone(claim).verdict;
      if (!(verdict in VERDICT_RANK)) { verdict = "not_in_context"; }
      if (worst === null || VERDICT_RANK[verdict] < VERDICT_RANK[worst]) { worst = verdict; }
    });
    return worst || "unjudged";
  }

  function diffSide(runs, keep, title, item) {
    var box = element("div", "diff-side");
    box.appendChild(element("h4", "", title));
    var paragraph = element("p", "text answer-diff");
    var offset = 0;
    runs.forEach(function (run) {
      if (run.kind === "same") { paragraph.appendChild(document.createTextNode(run.text)); }
      else if (run.kind === keep && keep === "removed") { paragraph.appendChild(element("del", "diff-removed", run.text)); }
      else if (run.kind === keep) {
        var verdict = addedVerdict(item, offset, offset + run.text.length);
        var added = element("ins", "diff-added added-" + verdict, run.text);
        added.setAttribute("data-verdict", verdict);
        added.title = "added; " + (verdict === "unjudged" ? "in no judged claim" : verdict.replace(/_/g, " "));
        paragraph.appendChild(added);
      }
      if (run.kind === "same" || run.kind === "added") { offset += run.text.length; }
    });
    box.appendChild(paragraph);
    return box;
  }

  function sharedWords(left, right) {
    var words = left.toLowerCase().split(/\s+/);
    var other = right.toLowerCase().split(/\s+/);
    var common = words.filter(function (word) { return other.indexOf(word) >= 0; }).length;
    return common / Math.max(words.length, other.length, 1);
  }

  // Claims whose verdict changed; a claim reworded between the runs ("2 TB" → "7 TB") is
  // paired with the one it replaced when most of their words are shared.
  function changedClaims(base, item) {
    var before = {};
    (base.claims || []).forEach(function (pair) { before[pair[0]] = pair[1]; });
    var now = {};
    var lines = [];
    var added = [];
    var claims = item.details && Array.isArray(item.details.faithfulness) ? item.details.faithfulness : [];
    claims.forEach(function (claim) {
      var text = String(claim.claim || "").trim();
      var verdict = claimTone(claim).verdict;
      now[text] = verdict;
      if (!(text in before)) {
        added.push({ text: text, verdict: verdict });
      } else if (before[text] !== verdict) {
        lines.push({ tone: verdict === "supported" ? "good" : "bad", label: before[text].replace(/_/g, " ") + " → " + verdict.replace(/_/g, " "), text: text, reason: "" });
      }
    });
    var gone = Object.keys(before).filter(function (text) { return !(text in now); });
    added.forEach(function (claim) {
      var best = -1;
      var bestShare = 0.5;
      gone.forEach(function (text, index) {
        var share = sharedWords(text, claim.text);
        if (share >= bestShare) { best = index; bestShare = share; }
      });
      var tone = claim.verdict === "supported" ? "good" : "bad";
      if (best >= 0) {
        var old = gone.splice(best, 1)[0];
        lines.push({
          tone: tone, label: before[old].replace(/_/g, " ") + " → " + claim.verdict.replace(/_/g, " "),
          text: claim.text, reason: "was: " + old
        });
      } else {
        lines.push({ tone: tone, label: "new claim · " + claim.verdict.replace(/_/g, " "), text: claim.text, reason: "" });
      }
    });
    gone.forEach(function (text) {
      lines.push({ tone: "unknown", label: "no longer claimed · was " + before[text].replace(/_/g, " "), text: text, reason: "" });
    });
    return lines;
  }

  function changeSection(item) {
    var base = item.base;
    if (!base) { return null; }
    if (base["new"]) { return section("Changed since baseline", [element("p", "muted", "A new case: the baseline has no case with this id.")]); }
    var parts = [];
    Object.keys(item.deltas || {}).forEach(function (name) {
      var pair = item.deltas[name];
      if (Math.abs(pair[1] - pair[0]) > 1e-9) {
        parts.push(element("p", "score-change", name + " " + formatScore(pair[0]) + " → " + formatScore(pair[1]) + " (" + signed(pair[1] - pair[0]) + ")"));
      }
    });
    if (base.error !== undefined) {
      parts.push(element("p", "", base.errored ? "The baseline errored: " + String(base.error || "").split("\n")[0] : "The baseline scored this case without error."));
    }
    if (typeof base.answer === "string") {
      var runs = wordDiff(base.answer, item.answer || "");
      var grid = element("div", "diff-grid");
      if (runs) {
        append(grid, [diffSide(runs, "removed", "Baseline answer"), diffSide(runs, "added", "This run", item)]);
      } else {
        append(grid, [
          append(element("div", "diff-side"), [element("h4", "", "Baseline answer"), element("p", "text", base.answer)]),
          append(element("div", "diff-side"), [element("h4", "", "This run"), element("p", "text", item.answer || "")])
        ]);
      }
      parts.push(grid);
    } else {
      parts.push(element("p", "muted", "The answer is the same as in the baseline."));
    }
    if (base.claims) {
      var lines = changedClaims(base, item);
      if (lines.length) {
        parts.push(element("h4", "", "Claim verdicts that changed"));
        parts.push(itemList(lines));
      }
    }
    var wrapper = section("Changed since baseline", parts);
    wrapper.id = "panel-changes";
    return wrapper;
  }

  // The answer judged against the baseline's (pairwise: true), both side by side.
  function pairwiseSection(item) {
    var pair = item.pairwise;
    if (!pair || !pair.changed) { return null; }
    var said = {win: "Better than the baseline's answer", loss: "Worse than the baseline's answer", tie: "Neither better nor worse than the baseline's answer", undecided: "Undecided: the judgement changed when the answers swapped places"};
    var line = pair.error ? "Not compared: " + pair.error : said[pair.outcome];
    var parts = [element("p", pair.outcome === "loss" ? "alarm" : "", line)];
    (pair.reasons || []).forEach(function (reason, index) {
      if (reason) { parts.push(element("p", "muted", (index === 0 ? "This run shown first: " : "Baseline shown first: ") + reason)); }
    });
    if (!item.base && typeof pair.baseline_answer === "string") {
      parts.push(append(element("div", "diff-grid"), [
        append(element("div", "diff-side"), [element("h4", "", "Baseline answer"), element("p", "text", pair.baseline_answer)]),
        append(element("div", "diff-side"), [element("h4", "", "This run"), element("p", "text", item.answer || "")])
      ]));
    }
    var wrapper = section("Head to head with the baseline", parts);
    wrapper.id = "panel-pairwise";
    return wrapper;
  }

  // A conversation's turns, oldest first, as a chat: each user turn, the reply and its
  // scores; the turn this panel is about is marked, the others link to their own panel.
  function conversationSection(item) {
    var file = item.source.replace(/:\d+$/, "");
    var turns = cases.filter(function (other) {
      return other.conversation === item.conversation && other.source.replace(/:\d+$/, "") === file;
    }).sort(function (a, b) { return (a.turn || 0) - (b.turn || 0); });
    var chat = element("ol", "chat");
    turns.forEach(function (turn) {
      // A turn below its own thresholds, or errored, is the one that broke the conversation.
      var broke = turn.status === "fail" || turn.status === "error";
      var entry = element("li", "chat-turn status-" + turn.status + (turn === item ? " chat-current" : "") + (broke ? " chat-broke" : ""));
      var asked = element("p", "chat-user");
      var label = turn === item ? element("strong", "", turn.turn + ".") : element("a", "", turn.turn + ".");
      if (turn !== item) { label.setAttribute("href", "#" + turn.anchor); }
      append(asked, [label, document.createTextNode(" " + (turn.question || ""))]);
      var scores = Object.keys(turn.scores || {}).map(function (name) {
        return name + " " + formatScore(turn.scores[name]);
      });
      append(entry, [
        asked,
        element("p", "chat-assistant", turn.answer === null || turn.answer === undefined ? "(no answer)" : turn.answer),
        element("p", "muted", statusLabel(turn) + (scores.length ? " · " + scores.join(" · ") : ""))
      ]);
      if (broke) {
        var why = (turn.misses || []).join(", ");
        entry.insertBefore(element("p", "turn-broke", "This turn broke the conversation" + (why ? ": " + why : "")), entry.firstChild);
      }
      chat.appendChild(entry);
    });
    return section("Conversation " + item.conversation, [chat]);
  }

  function renderPanel(item) {
    var content = document.getElementById("panel-content");
    content.textContent = "";
    var details = item.details || {};
    var title = element("h2", "", item.id);
    title.id = "panel-title";
    var meta = element("p", "muted");
    append(meta, [
      element("span", "status status-" + item.status, statusLabel(item)),
      document.createTextNode(" " + item.source + " ")
    ]);
    (item.tags || []).forEach(function (tag) { meta.appendChild(element("span", "tag", tag)); });
    append(content, [title, meta]);

    var lines = verdictLines(item);
    if (lines.length) {
      var verdicts = element("ul", "failures");
      lines.forEach(function (line) { verdicts.appendChild(element("li", "alarm", line)); });
      content.appendChild(verdicts);
    }
    if (item.incomplete) { content.appendChild(element("p", "warning", "The run stopped before this case was fully scored.")); }
    var changes = changeSection(item);
    if (changes) { content.appendChild(changes); }
    var pairwise = pairwiseSection(item);
    if (pairwise) { content.appendChild(pairwise); }
    if (item.error) { content.appendChild(section("Error", [element("pre", "error", item.error)])); }

    if (item.conversation) { content.appendChild(conversationSection(item)); }
    content.appendChild(section("Question", [element("p", "text", item.question || "")]));
    var claims = Array.isArray(details.faithfulness) ? details.faithfulness : [];
    if (item.answer !== null && item.answer !== undefined) {
      var answerParts = [highlightedAnswer(item, claims)];
      if (claims.length) {
        answerParts.push(element("h4", "", "Claims (faithfulness)"));
        answerParts.push(itemList(claims.map(function (claim, index) {
          var tone = claimTone(claim);
          return {
            tone: tone.tone, label: (index + 1) + " " + tone.label, text: claim.claim || "",
            reason: claim.reason || "", verdict: tone.label, attributes: { "data-verdict": tone.verdict }
          };
        })));
      }
      content.appendChild(section("Answer", answerParts));
    }

    var contexts = Array.isArray(item.contexts) ? item.contexts : [];
    if (contexts.length) {
      var judged = {};
      (Array.isArray(details.context_precision) ? details.context_precision : []).forEach(function (detail, index) {
        judged[typeof detail.index === "number" ? detail.index : index] = detail;
      });
      content.appendChild(section("Contexts, in rank order", [itemList(contexts.map(function (text, index) {
        var detail = judged[index];
        var known = detail && typeof detail.relevant === "boolean";
        var hop = Array.isArray(item.context_hops) && item.context_hops[index] ? " hop " + item.context_hops[index] : "";
        var label = "#" + (index + 1) + hop + " " + (known ? (detail.relevant ? "relevant" : "not relevant") : "not judged");
        return {
          tone: known ? (detail.relevant ? "good" : "bad") : "unknown", label: label,
          id: detail && detail.id ? String(detail.id) : "",
          text: String(text), reason: detail && detail.reason ? detail.reason : "",
          attributes: { "data-relevant": known ? String(detail.relevant) : "unknown" }
        };
      }))]));
    }

    if (Array.isArray(item.retrieval_hops) && item.retrieval_hops.length) {
      content.appendChild(section("Retrieval per hop", [genericDetails(item.retrieval_hops)]));
    }

    // Reference statements the answer left out: answer_correctness's false negatives.
    var omitted = {};
    (Array.isArray(details.answer_correctness) ? details.answer_correctness : []).forEach(function (entry) {
      if (entry && entry.classification === "FN") { omitted[normalStatement(entry.statement)] = entry; }
    });
    var statements = Array.isArray(details.context_recall) ? details.context_recall : [];
    var statementItems = statements.map(function (statement) {
      var attributed = Boolean(statement.attributed);
      var key = normalStatement(statement.statement);
      var left = key in omitted;
      delete omitted[key];
      return {
        tone: left ? "unknown" : attributed ? "good" : "bad",
        label: (attributed ? "in the contexts" : "not in the contexts") + (left ? " · omitted by the answer" : ""),
        text: statement.statement || "", reason: statement.reason || "",
        attributes: left ? { "data-omitted": "true" } : null
      };
    });
    Object.keys(omitted).forEach(function (key) {
      statementItems.push({
        tone: "unknown", label: "omitted by the answer", text: omitted[key].statement || "",
        reason: omitted[key].reason || "", attributes: { "data-omitted": "true" }
      });
    });
    if (statementItems.length) {
      content.appendChild(section("Reference statements", [itemList(statementItems)]));
    }

    content.appendChild(section("Scores and thresholds", [append(element("div", "scores-wrap"), [scoresTable(item)])]));

    Object.keys(details).forEach(function (name) {
      if (CORE_DETAILS.indexOf(name) >= 0 || (item.errors && name in item.errors) || !Array.isArray(details[name]) || !details[name].length) { return; }
      content.appendChild(section("Details: " + name, [genericDetails(details[name])]));
    });

    var errors = Object.keys(item.errors || {});
    if (errors.length) {
      content.appendChild(section("Metric errors", errors.map(function (name) {
        var block = element("div");
        return append(block, [element("h4", "", name), element("pre", "error", item.errors[name])]);
      })));
    }

    if (item.diagnosis) {
      var diagnosis = typeof item.diagnosis === "string" ? { component: item.diagnosis } : item.diagnosis;
      var parts = [element("p", "", "Component to fix: " + (diagnosis.component || "–"))];
      if (Array.isArray(diagnosis.reasons) && diagnosis.reasons.length) {
        var reasons = element("ul", "plain");
        diagnosis.reasons.forEach(function (reason) { reasons.appendChild(element("li", "", reason)); });
        parts.push(reasons);
      }
      content.appendChild(section("Diagnosis", parts));
    }

    var facts = element("dl", "kv");
    if (typeof item.latency_s === "number") {
      append(facts, [element("dt", "", "latency"), element("dd", "", item.latency_s.toFixed(3) + " s")]);
    }
    var calls = 0;
    var tokens = 0;
    Object.keys(item.usage || {}).forEach(function (name) {
      var usage = item.usage[name] || {};
      calls += usage.calls || 0;
      tokens += (usage.input_tokens || 0) + (usage.output_tokens || 0);
    });
    append(facts, [element("dt", "", "judge calls"), element("dd", "", calls + " (" + tokens + " tokens)")]);
    content.appendChild(section("Run", [facts]));
  }

  var panel = document.getElementById("case-panel");
  var opener = null;
  var openAnchor = "";

  function showFromHash() {
    var hash = window.location.hash.slice(1);
    var item = hash.indexOf("case=") === 0 ? caseByAnchor[hash] : undefined;
    if (!item) {
      panel.hidden = true;
      return;
    }
    if (panel.hidden) {
      var active = document.activeElement;
      opener = active && active !== document.body && !panel.contains(active) ? active : null;
    }
    openAnchor = hash;
    renderPanel(item);
    renderPanelNav(item);
    panel.hidden = false;
    panel.querySelector(".panel-body").scrollTop = 0;
    document.getElementById("panel-close").focus();
  }

  // Previous and next step through the cases the current filter shows, in the table's
  // order; the table turns to the page of the case shown, so closing lands on its row.
  function panelNeighbours(item) {
    var shown = visibleCases();
    var index = shown.indexOf(item);
    return {
      shown: shown,
      index: index,
      previous: index > 0 ? shown[index - 1] : null,
      next: index >= 0 && index < shown.length - 1 ? shown[index + 1] : null
    };
  }

  function renderPanelNav(item) {
    var around = panelNeighbours(item);
    document.getElementById("panel-prev").disabled = !around.previous;
    document.getElementById("panel-next").disabled = !around.next;
    document.getElementById("panel-position").textContent = around.index >= 0
      ? (around.index + 1) + " of " + around.shown.length + " shown"
      : "not in the current filter";
    if (around.index >= 0) {
      var page = Math.floor(around.index / PAGE_SIZE);
      if (page !== state.page) { state.page = page; render(); }
    }
  }

  function stepPanel(offset) {
    var item = caseByAnchor[openAnchor];
    if (!item) { return; }
    var around = panelNeighbours(item);
    var target = offset < 0 ? around.previous : around.next;
    if (!target) { return; }
    opener = null;
    // Keys pressed before the hashchange arrives step on from the new case, not the old.
    openAnchor = target.anchor;
    window.location.hash = target.anchor;
  }

  // Focus goes back where it came from: the row's link that opened the panel, or, when the
  // table was drawn again meanwhile, the link of the same case.
  function restoreFocus() {
    var target = opener && document.body.contains(opener) ? opener : null;
    if (!target && openAnchor) {
      var links = document.querySelectorAll("#case-rows a.case-link");
      for (var index = 0; index < links.length; index += 1) {
        if (links[index].getAttribute("href") === "#" + openAnchor) { target = links[index]; break; }
      }
    }
    opener = null;
    openAnchor = "";
    if (target) { target.focus(); }
  }

  // Tab and Shift+Tab cycle through the panel while it is open, as in any modal dialog.
  function trapFocus(event) {
    var focusable = Array.prototype.filter.call(
      panel.querySelectorAll("a[href], button, input, select, textarea, summary, [tabindex]:not([tabindex='-1'])"),
      function (node) { return !node.disabled && node.getClientRects().length > 0; }
    );
    if (!focusable.length) { return; }
    var first = focusable[0];
    var last = focusable[focusable.length - 1];
    var inside = panel.contains(document.activeElement);
    if (event.shiftKey && (document.activeElement === first || !inside)) {
      event.preventDefault();
      last.focus();
    } else if (!event.shiftKey && (document.activeElement === last || !inside)) {
      event.preventDefault();
      first.focus();
    }
  }

  function closePanel() {
    var wasOpen = !panel.hidden;
    panel.hidden = true;
    if (wasOpen) { restoreFocus(); }
    if (window.location.hash) {
      try {
        window.history.replaceState(null, "", window.location.pathname + window.location.search);
      } catch (error) {
        window.location.hash = "";
      }
    }
  }

  // --- wiring -------------------------------------------------------------------------

  function bind(id, event, handler) {
    document.getElementById(id).addEventListener(event, handler);
  }

  bind("filter-text", "input", function (event) { state.text = event.target.value; state.page = 0; render(); });
  bind("filter-tag", "change", function (event) { state.tag = event.target.value; state.page = 0; render(); });
  bind("filter-miss", "change", function (event) { state.miss = event.target.value; state.page = 0; render(); });
  bind("filter-status", "change", function (event) { state.status = event.target.value; state.page = 0; render(); });
  if (document.getElementById("filter-changed")) {
    bind("filter-changed", "change", function (event) { state.changed = event.target.checked; state.page = 0; render(); });
  }
  bind("filter-range-clear", "click", function () { state.range = null; state.page = 0; render(); });
  // A metric card lists the cases below its threshold; a histogram bar, the cases in its bin.
  Array.prototype.forEach.call(document.querySelectorAll("#metrics .card[data-filter]"), function (card) {
    card.addEventListener("click", function (event) {
      if (event.target.closest("rect[data-metric], a, summary, details")) { return; }
      state.miss = card.getAttribute("data-metric");
      state.range = null;
      document.getElementById("filter-miss").value = state.miss;
      showCases();
    });
  });
  function pickBar(bar) {
    if (bar.getAttribute("data-count") === "0") { return; }
    state.range = {
      metric: bar.getAttribute("data-metric"),
      low: parseFloat(bar.getAttribute("data-low")),
      high: parseFloat(bar.getAttribute("data-high"))
    };
    showCases();
  }
  Array.prototype.forEach.call(document.querySelectorAll("#metrics rect[data-metric]"), function (bar) {
    bar.addEventListener("click", function () { pickBar(bar); });
    bar.addEventListener("keydown", function (event) {
      if (event.key === "Enter" || event.key === " ") { event.preventDefault(); pickBar(bar); }
    });
  });
  bind("sort-select", "change", function (event) {
    state.sort = event.target.value;
    state.descending = event.target.value === "rank" ? false : worstFirstIsDescending(state.sort);
    state.page = 0;
    render();
  });
  bind("sort-reverse", "click", function () { state.descending = !state.descending; state.page = 0; render(); });
  bind("cards-toggle", "click", function (event) {
    var expanded = document.getElementById("metric-cards").classList.toggle("expanded");
    event.target.setAttribute("aria-expanded", expanded ? "true" : "false");
    event.target.textContent = expanded ? "Fold the metrics to one line each" : "Show each metric's details";
  });
  bind("page-prev", "click", function () { state.page -= 1; render(); });
  bind("page-next", "click", function () { state.page += 1; render(); });
  bind("panel-close", "click", closePanel);
  panel.addEventListener("click", function (event) { if (event.target === panel) { closePanel(); } });
  bind("panel-prev", "click", function () { stepPanel(-1); });
  bind("panel-next", "click", function () { stepPanel(1); });
  document.addEventListener("keydown", function (event) {
    if (panel.hidden) { return; }
    var typing = event.target.closest && event.target.closest("input, select, textarea");
    if (event.key === "Escape") {
      closePanel();
    } else if (event.key === "Tab") {
      trapFocus(event);
    } else if (!typing && !event.altKey && !event.ctrlKey && !event.metaKey && (event.key === "j" || event.key === "k")) {
      event.preventDefault();
      stepPanel(event.key === "j" ? 1 : -1);
    }
  });
  // The header row follows the top of the viewport while the table passes under it.
  var caseWrap = document.querySelector(".table-wrap");
  var headPending = false;
  function placeHead() {
    headPending = false;
    var box = caseWrap.getBoundingClientRect();
    var head = document.getElementById("case-head");
    var room = Math.max(0, box.height - head.getBoundingClientRect().height);
    var offset = Math.min(room, Math.max(0, -box.top - caseWrap.clientTop)).toFixed(2) + "px";
    // Setting the same value again would still cost a style pass on every scroll frame.
    if (caseWrap.style.getPropertyValue("--head-top") !== offset) {
      caseWrap.style.setProperty("--head-top", offset);
    }
  }
  function queueHead() {
    if (!headPending) { headPending = true; window.requestAnimationFrame(placeHead); }
  }
  window.addEventListener("scroll", queueHead, { passive: true });
  window.addEventListener("resize", queueHead);
  window.addEventListener("hashchange", showFromHash);

  readUrl();
  renderColumnChooser();
  render();
  showFromHash();
  }
})();
