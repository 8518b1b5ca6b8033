/**
 * How close token estimates come to exact o200k counts on the real sessions in fixtures/corpus.
 *
 * Measured per model request: before each assistant message, the context sent was the system prompt and
 * every earlier message; its exact o200k count is compared with each estimator's. A calibrated counter
 * "after k anchors" has been fed the exact counts of the session's first k requests (standing in for the
 * usage a provider reports) and is then frozen; its error is measured on the requests after those k.
 *
 * The calibrated counter is for tokenizers ctxkit does not have; o200k stands in for one. A second table
 * repeats the key figures against other real tokenizers, each standing in for the provider in turn:
 * cl100k (another modern vocabulary) and GPT-3's p50k and r50k (50k vocabularies that cut digits and
 * whitespace differently), as a check that token units (`countTokenUnits`) are not fitted to o200k and
 * that the multiplier carries what is left. Nothing in the units or the calibration rule was fitted on
 * this corpus.
 *
 *   npx tsx bench/token-accuracy.ts [corpus-dir]
 */
import { countTokens as countP50k } from 'gpt-tokenizer/encoding/p50k_base';
import { countTokens as countR50k } from 'gpt-tokenizer/encoding/r50k_base';
import type { Message } from '../src/core/message.ts';
import {
  breakdownFromMeasure,
  CalibratedTokenCounter,
  type CalibrationAnchor,
  CHARS_PER_TOKEN_SEED_001,
  CHARS_PER_TOKEN_SEED_004,
  countRunes,
  countTokenUnits,
  createExactCounter,
  createHeuristicCounter,
  DEFAULT_MESSAGE_OVERHEAD_TOKENS,
  estimateMessageTokens,
  linearBreakdown,
  type MessageMeasure,
  measuredRunes,
  measuredUnits,
  measureMessage,
  resolveTokenEstimateOptions,
  type TokenCounter,
  tokensForRunes,
  tokensForUnits,
} from '../src/core/tokens/index.ts';
import {
  CORPUS_DIR,
  median,
  Progress,
  percent,
  percentile,
  printTable,
  readCorpus,
  relativeError,
} from './token-bench-support.ts';

const ANCHOR_COUNTS = [1, 2, 5] as const;
const options = resolveTokenEstimateOptions();
/** Special-token lookalikes are plain text to a provider (see `exact-counter.ts`). */
const AS_PLAIN_TEXT = { disallowedSpecial: new Set<string>() };
const TARGETS: readonly [TokenCounter, ...TokenCounter[]] = [
  createExactCounter('o200k'),
  createExactCounter('cl100k'),
  { name: 'p50k_base', count: (text) => (text.length === 0 ? 0 : countP50k(text, AS_PLAIN_TEXT)) },
  { name: 'r50k_base', count: (text) => (text.length === 0 ? 0 : countR50k(text, AS_PLAIN_TEXT)) },
];

interface Session {
  file: string;
  messages: Message[];
  /** Exact tokens per message (framing included) by target encoding, computed once. */
  exact: Map<string, number[]>;
  systemExact: Map<string, number>;
  measures: MessageMeasure[];
  systemRunes: number[];
  systemUnits: number[];
  /** Index of each assistant message: request j sends messages [0, requests[j]). */
  requests: number[];
}

/** Prefix sums: `sums[i]` is the sum of the first i values. */
function prefixSums(values: readonly number[]): number[] {
  const sums = [0];
  for (const value of values) sums.push((sums[sums.length - 1] ?? 0) + value);
  return sums;
}

const at = (values: readonly number[], index: number): number => {
  const value = values[index];
  if (value === undefined) throw new Error(`no value at ${index}`);
  return value;
};

const get = <V>(map: ReadonlyMap<string, V>, key: string): V => {
  const value = map.get(key);
  if (value === undefined) throw new Error(`no ${key}`);
  return value;
};

function prepare(file: string, messages: Message[], systemPieces: string[]): Session {
  const exact = new Map<string, number[]>();
  const systemExact = new Map<string, number>();
  for (const target of TARGETS) {
    exact.set(
      target.name,
      messages.map((m) => estimateMessageTokens(m, target, options).total),
    );
    systemExact.set(
      target.name,
      systemPieces.reduce((sum, s) => sum + target.count(s) + options.messageOverheadTokens, 0),
    );
  }
  const requests: number[] = [];
  messages.forEach((m, index) => {
    if (m.role === 'assistant') requests.push(index);
  });
  return {
    file,
    messages,
    exact,
    systemExact,
    measures: messages.map((m) => measureMessage(m, options)),
    systemRunes: systemPieces.map(countRunes),
    systemUnits: systemPieces.map(countTokenUnits),
    requests,
  };
}

/** Per-request estimates of a linear counter (heuristic, or a calibrated counter as it stands now). */
function requestEstimates(session: Session, counter: TokenCounter): number[] {
  const perMessage = session.measures.map((m) => linearBreakdown(m, counter)?.total ?? Number.NaN);
  const sums = prefixSums(perMessage);
  const systemText =
    counter.tokensPerUnit !== undefined
      ? session.systemUnits.map((units) => tokensForUnits(units, counter.tokensPerUnit ?? 1))
      : session.systemRunes.map((runes) => tokensForRunes(runes, counter.charsPerToken ?? 1));
  const system = systemText.reduce((sum, tokens) => sum + tokens + options.messageOverheadTokens, 0);
  return session.requests.map((end) => system + at(sums, end));
}

interface SessionSums {
  exact: number[];
  runes: number[];
  units: number[];
  fixed: number[];
}

function sessionSums(session: Session, target: string): SessionSums {
  return {
    exact: prefixSums(get(session.exact, target)),
    runes: prefixSums(session.measures.map(measuredRunes)),
    units: prefixSums(session.measures.map(measuredUnits)),
    fixed: prefixSums(session.measures.map((m) => m.media + m.overhead)),
  };
}

/** The usage a provider would report for request j: units sent vs tokens billed. */
function anchorFor(s: Session, sums: SessionSums, target: string, end: number): CalibrationAnchor {
  return {
    units: s.systemUnits.reduce((a, b) => a + b, 0) + at(sums.units, end),
    tokens: get(s.systemExact, target) + at(sums.exact, end),
    fixedTokens: s.systemUnits.length * options.messageOverheadTokens + at(sums.fixed, end),
  };
}

class ErrorSeries {
  readonly all: number[] = [];
  readonly perSession: number[] = [];

  addSession(errors: number[]): void {
    this.all.push(...errors);
    if (errors.length > 0) this.perSession.push(median(errors));
  }

  summary(): string {
    return `${percent(median(this.all))} / ${percent(percentile(this.all, 0.9))}`;
  }

  row(label: string): string[] {
    return [
      label,
      String(this.all.length),
      percent(median(this.all)),
      percent(percentile(this.all, 0.9)),
      percent(median(this.perSession)),
    ];
  }
}

class SeriesMap {
  readonly #series = new Map<string, ErrorSeries>();

  get(label: string): ErrorSeries {
    let found = this.#series.get(label);
    if (!found) {
      found = new ErrorSeries();
      this.#series.set(label, found);
    }
    return found;
  }

  rows(): string[][] {
    return [...this.#series].map(([label, s]) => s.row(label));
  }
}

const anchorsLabel = (k: number) => `calibrated after ${k} anchor${k > 1 ? 's' : ''}`;

interface Evaluation {
  requests: SeriesMap;
  messages: SeriesMap;
  learned: Map<number, number[]>;
}

function evaluate(sessions: Session[], target: string): Evaluation {
  const requests = new SeriesMap();
  const messages = new SeriesMap();
  const learned = new Map<number, number[]>();
  const progress = new Progress(`evaluating estimators against ${target}`, sessions.length);
  for (const session of sessions) {
    const sums = sessionSums(session, target);
    const exactMessages = get(session.exact, target);
    const exactPerRequest = session.requests.map(
      (end) => get(session.systemExact, target) + at(sums.exact, end),
    );
    const errorsOf = (estimates: number[], from = 0) =>
      estimates.slice(from).map((estimate, j) => relativeError(estimate, at(exactPerRequest, j + from)));
    const messageErrors = (counter: TokenCounter, fromMessage: number) =>
      session.measures
        .slice(fromMessage)
        .map((m, i) =>
          relativeError(linearBreakdown(m, counter)?.total ?? Number.NaN, at(exactMessages, i + fromMessage)),
        );

    for (const n of [CHARS_PER_TOKEN_SEED_001, CHARS_PER_TOKEN_SEED_004]) {
      const heuristic = createHeuristicCounter(n);
      const estimates = requestEstimates(session, heuristic);
      requests.get(`chars/${n}, all requests`).addSession(errorsOf(estimates));
      requests.get(`chars/${n}, requests after the 2nd`).addSession(errorsOf(estimates, 2));
      messages.get(`chars/${n}`).addSession(messageErrors(heuristic, 0));
    }

    const prior = new CalibratedTokenCounter();
    requests
      .get('calibrated, no anchor (prior: 1 token/unit)')
      .addSession(errorsOf(requestEstimates(session, prior)));
    messages.get('calibrated, no anchor').addSession(messageErrors(prior, 0));

    for (const k of ANCHOR_COUNTS) {
      if (session.requests.length <= k) continue;
      const counter = new CalibratedTokenCounter();
      for (const end of session.requests.slice(0, k)) counter.observe(anchorFor(session, sums, target, end));
      learned.set(k, [...(learned.get(k) ?? []), counter.tokensPerUnit]);
      requests.get(anchorsLabel(k)).addSession(errorsOf(requestEstimates(session, counter), k));
      messages.get(anchorsLabel(k)).addSession(messageErrors(counter, at(session.requests, k - 1)));
    }

    // In operation every call reports usage: the counter learns from all earlier requests, and seed
    // tiancai's estimate stands on the previous request's usage plus an estimate of what came after it.
    const online = new CalibratedTokenCounter();
    const onlineErrors: number[] = [];
    const anchoredFour: number[] = [];
    const anchoredCalibrated: number[] = [];
    session.requests.forEach((end, j) => {
      if (j > 0) {
        const previousEnd = at(session.requests, j - 1);
        const exact = at(exactPerRequest, j);
        onlineErrors.push(relativeError(requestEstimates(session, online)[j] ?? Number.NaN, exact));
        // usage of the previous call: its input, plus its output (the assistant message itself)
        const usage = at(exactPerRequest, j - 1) + at(exactMessages, previousEnd);
        let tailFour = 0;
        let tailCalibrated = 0;
        for (let i = previousEnd + 1; i < end; i++) {
          const measure = session.measures[i];
          if (!measure) continue;
          tailFour += breakdownFromMeasure(measure, CHARS_PER_TOKEN_SEED_001).total;
          tailCalibrated += linearBreakdown(measure, online)?.total ?? Number.NaN;
        }
        anchoredFour.push(relativeError(usage + tailFour, exact));
        anchoredCalibrated.push(relativeError(usage + tailCalibrated, exact));
      }
      online.observe(anchorFor(session, sums, target, end));
    });
    requests.get('calibrated online (every earlier request)').addSession(onlineErrors);
    requests.get('tiancai anchored: last usage + chars/4 tail').addSession(anchoredFour);
    requests.get('tiancai anchored: last usage + calibrated tail').addSession(anchoredCalibrated);
    progress.tick();
  }
  progress.done();
  return { requests, messages, learned };
}

const REQUEST_HEADER = ['estimator', 'requests', 'median', 'p90', 'per-session median'];

function main(): void {
  const dir = process.argv[2] ?? CORPUS_DIR;
  const corpus = readCorpus(dir);
  const progress = new Progress(
    `counting exact ${TARGETS.map((t) => t.name).join(', ')} per message`,
    corpus.length,
  );
  const sessions = corpus.map(({ file, transcript }) => {
    const session = prepare(file, transcript.messages, transcript.system);
    progress.tick();
    return session;
  });
  progress.done();
  const [o200k] = TARGETS;
  const evaluations = TARGETS.map((target) => evaluate(sessions, target.name));
  const [primary] = evaluations;
  if (!primary) throw new Error('no evaluation');

  const totalMessages = sessions.reduce((sum, s) => sum + s.messages.length, 0);
  const totalRequests = sessions.reduce((sum, s) => sum + s.requests.length, 0);
  const sumOf = (values: readonly number[]) => values.reduce((a, b) => a + b, 0);
  const totalExact = sessions.reduce(
    (sum, s) => sum + sumOf(get(s.exact, o200k.name)) + get(s.systemExact, o200k.name),
    0,
  );
  const totalRunes = sessions.reduce(
    (sum, s) => sum + sumOf(s.measures.map(measuredRunes)) + sumOf(s.systemRunes),
    0,
  );
  const totalUnits = sessions.reduce(
    (sum, s) => sum + sumOf(s.measures.map(measuredUnits)) + sumOf(s.systemUnits),
    0,
  );
  console.log(`\ncorpus: ${dir}`);
  console.log(
    `${sessions.length} sessions, ${totalMessages} messages, ${totalRequests} requests; ` +
      `${totalRunes} runes, ${totalUnits} token units = ${totalExact} exact o200k tokens ` +
      `(framing ${DEFAULT_MESSAGE_OVERHEAD_TOKENS}/message included): ` +
      `${(totalRunes / totalExact).toFixed(2)} runes/token, ${(totalExact / totalUnits).toFixed(3)} tokens/unit\n`,
  );
  console.log('Absolute relative error of the context estimate per request, against exact o200k');
  console.log(
    '(all = pooled over every request of every session; per-session = median of session medians)\n',
  );
  printTable(REQUEST_HEADER, primary.requests.rows());
  console.log('\nLearned tokens per unit after k anchors, over sessions (o200k)');
  printTable(
    ['anchors', 'sessions', 'p10', 'median', 'p90'],
    [...primary.learned].map(([k, values]) => [
      String(k),
      String(values.length),
      percentile(values, 0.1).toFixed(3),
      median(values).toFixed(3),
      percentile(values, 0.9).toFixed(3),
    ]),
  );
  console.log('\nAgainst other tokenizers, each standing in for the provider (median / p90 per request;');
  console.log('calibrated rows as above: frozen after k anchors, or learning from every earlier request)\n');
  const columns = [
    'chars/4, all requests',
    'calibrated, no anchor (prior: 1 token/unit)',
    anchorsLabel(1),
    anchorsLabel(2),
    anchorsLabel(5),
    'calibrated online (every earlier request)',
  ];
  printTable(
    ['tokenizer', 'chars/4', 'no anchor', '1 anchor', '2 anchors', '5 anchors', 'online'],
    TARGETS.map((target, index) => [
      target.name,
      ...columns.map((label) => evaluations[index]?.requests.get(label).summary() ?? '—'),
    ]),
  );
  console.log('\nSecondary: absolute relative error per message (framing included), against exact o200k');
  console.log('(calibrated: the multiplier after k anchors, on the messages from the k-th request on)\n');
  printTable(['estimator', 'messages', 'median', 'p90', 'per-session median'], primary.messages.rows());
}

main();
