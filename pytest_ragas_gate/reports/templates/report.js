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
  var CORE_DETAILS = ["faithfulness", "context_precision", "context_recall"];

  var data = JSON.parse(document.getElementById("rag-gate-data").textContent);
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
    item.drop = null;
    if (item.deltas) {
      Object.keys(item.deltas).forEach(function (name) {
        var pair = item.deltas[name];
        var metric = metricByName[name];
        var worse = metric && metric.direction === "max" ? pair[1] - pair[0] : pair[0] - pair[1];
        if (item.drop === null || worse > item.drop) { item.drop = worse; }
      });
    }
  });

  var hasLatency = cases.some(function (item) { return typeof item.latency_s === "number"; });
  var hasDeltas = cases.some(function (item) { return item.drop !== null; });
  var hasDiagnosis = cases.some(function (item) { return Boolean(item.diagnosis); });

  var state = { text: "", tag: "", miss: "", status: "", sort: "rank", descending: false, page: 0 };

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

  function columns() {
    var list = [
      { key: "rank", label: "status" },
      { key: "id", label: "case" },
      { key: "tags", label: "tags", fixed: true }
    ];
    metrics.forEach(function (metric) { list.push({ key: "metric:" + metric.name, label: metric.name, metric: metric }); });
    if (hasLatency) { list.push({ key: "latency", label: "latency" }); }
    if (hasDeltas) { list.push({ key: "drop", label: "worst Δ" }); }
    if (hasDiagnosis) { list.push({ key: "diagnosis", label: "diagnosis" }); }
    return list;
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

  function visibleCases() {
    var text = state.text.trim().toLowerCase();
    var shown = cases.filter(function (item) {
      if (state.tag && (item.tags || []).indexOf(state.tag) < 0) { return false; }
      if (state.miss && (item.misses || []).indexOf(state.miss) < 0) { return false; }
      if (state.status === "problem") {
        if (item.status === "pass") { return false; }
      } else if (state.status && item.status !== state.status) {
        return false;
      }
      return !text || item.haystack.indexOf(text) >= 0;
    });
    var key = state.sort;
    var direction = state.descending ? -1 : 1;
    shown.sort(function (a, b) {
      var left = sortValue(a, key);
      var right = sortValue(b, key);
      // Unscored cases (n/a, errored) go last whichever way the column is sorted.
      if (left === null && right !== null) { return 1; }
      if (right === null && left !== null) { return -1; }
      if (left !== null && left !== right) { return (left < right ? -1 : 1) * direction; }
      return a.rank - b.rank;
    });
    return shown;
  }

  function renderHead() {
    var row = document.getElementById("case-head");
    row.textContent = "";
    columns().forEach(function (column) {
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

  function renderRow(item) {
    var row = element("tr");
    row.setAttribute("data-key", item.key);
    row.setAttribute("data-status", item.status);
    var status = element("td");
    status.appendChild(element("span", "status status-" + item.status, STATUS_LABELS[item.status] || item.status));
    var caseCell = element("td", "case-cell");
    var link = element("a", "case-link", item.id);
    link.setAttribute("href", "#" + item.anchor);
    append(caseCell, [link, element("div", "question", item.question || ""), element("div", "muted", item.source)]);
    var tags = element("td");
    (item.tags || []).forEach(function (tag) { tags.appendChild(element("span", "tag", tag)); });
    append(row, [status, caseCell, tags]);
    metrics.forEach(function (metric) { row.appendChild(scoreCell(item, metric)); });
    if (hasLatency) {
      row.appendChild(element("td", "score", typeof item.latency_s === "number" ? item.latency_s.toFixed(2) + " s" : ""));
    }
    if (hasDeltas) {
      var drop = element("td", "score", item.drop === null ? "" : signed(-item.drop));
      if (item.drop !== null && item.drop > 1e-9) { drop.className += " miss"; }
      row.appendChild(drop);
    }
    if (hasDiagnosis) { row.appendChild(element("td", "", diagnosisText(item.diagnosis))); }
    return row;
  }

  function render() {
    var shown = visibleCases();
    var pages = Math.max(1, Math.ceil(shown.length / PAGE_SIZE));
    state.page = Math.min(state.page, pages - 1);
    var start = state.page * PAGE_SIZE;
    var body = document.getElementById("case-rows");
    var fragment = document.createDocumentFragment();
    shown.slice(start, start + PAGE_SIZE).forEach(function (item) { fragment.appendChild(renderRow(item)); });
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
      append(row, [
        element("th", "", name),
        element("td", missed ? "miss" : "", errored ? "error" : score === null ? "n/a" : formatScore(score)),
        element("td", "", threshold ? (metric && metric.direction === "max" ? "≤ " : "≥ ") + threshold.value.toFixed(2) + (threshold.own ? " (case)" : "") : "–"),
        element("td", missed ? "alarm" : "", verdict),
        element("td", "", (item.reasons && item.reasons[name]) || "")
      ]);
      if (human) {
        var label = human[name];
        row.appendChild(element("td", "human", typeof label === "number" ? formatScore(label) : "–"));
      }
      if (item.deltas) {
        var pair = item.deltas[name];
        row.appendChild(element("td", "", pair ? formatScore(pair[0]) + " → " + formatScore(pair[1]) + " (" + signed(pair[1] - pair[0]) + ")" : "–"));
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

  // A conversation's turns, oldest first, as a chat: each user turn, the reply and its
  // scores; the turn this panel is about is marked, the others link to their own panel.
  function conversationSection(item) {
    var file = item.source.replace(/:\d+$/, "");
    var turns = cases.filter(function (other) {
      return other.conversation === item.conversation && other.source.replace(/:\d+$/, "") === file;
    }).sort(function (a, b) { return (a.turn || 0) - (b.turn || 0); });
    var chat = element("ol", "chat");
    turns.forEach(function (turn) {
      var entry = element("li", "chat-turn status-" + turn.status + (turn === item ? " chat-current" : ""));
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
        element("p", "muted", (STATUS_LABELS[turn.status] || turn.status) + (scores.length ? " · " + scores.join(" · ") : ""))
      ]);
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
      element("span", "status status-" + item.status, STATUS_LABELS[item.status] || item.status),
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
        var label = "#" + (index + 1) + " " + (known ? (detail.relevant ? "relevant" : "not relevant") : "not judged");
        return {
          tone: known ? (detail.relevant ? "good" : "bad") : "unknown", label: label,
          id: detail && detail.id ? String(detail.id) : "",
          text: String(text), reason: detail && detail.reason ? detail.reason : "",
          attributes: { "data-relevant": known ? String(detail.relevant) : "unknown" }
        };
      }))]));
    }

    var statements = Array.isArray(details.context_recall) ? details.context_recall : [];
    if (statements.length) {
      content.appendChild(section("Reference statements", [itemList(statements.map(function (statement) {
        var attributed = Boolean(statement.attributed);
        return {
          tone: attributed ? "good" : "bad", label: attributed ? "attributed" : "not attributed",
          text: statement.statement || "", reason: statement.reason || ""
        };
      }))]));
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
    panel.hidden = false;
    panel.querySelector(".panel-body").scrollTop = 0;
    document.getElementById("panel-close").focus();
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
  bind("page-prev", "click", function () { state.page -= 1; render(); });
  bind("page-next", "click", function () { state.page += 1; render(); });
  bind("panel-close", "click", closePanel);
  panel.addEventListener("click", function (event) { if (event.target === panel) { closePanel(); } });
  document.addEventListener("keydown", function (event) {
    if (panel.hidden) { return; }
    if (event.key === "Escape") { closePanel(); } else if (event.key === "Tab") { trapFocus(event); }
  });
  window.addEventListener("hashchange", showFromHash);

  render();
  showFromHash();
})();
