/**
 * The words an error message uses to say "the request does not fit the model's window", sorted by the part
 * they play in that sentence (read-overflow-wording.ts reads the sentence). Phrases are written as the
 * tokenizer leaves them: lower case, with `_`, `-` and camelCase split into words, so `max_tokens`,
 * `max-tokens` and `maxTokens` are all `max tokens`.
 */

/** The part a word plays in a sentence about sizes and limits. */
export type WordClass =
  /** The request's own size: prompt, input, messages, request, tokens… */
  | 'subject'
  /** "context": the request's size and the model's window at once. */
  | 'context'
  /** The model's window by name: context length/window/size, n_ctx, max_model_len, token limit… */
  | 'window'
  /** A bound of any kind: maximum, limit, allowed, capacity… */
  | 'limit'
  /** The answer's size, a parameter of the request rather than its length: max_tokens, output, completion… */
  | 'output'
  /** A size or a count of something else: image, file, rate, memory, budget, time, tools… */
  | 'other'
  /** Length, size, count, number, bytes: they stand for the noun they measure. */
  | 'measure'
  /** Exceeds, greater/longer/larger than, over, beyond, >, reached, out of room… */
  | 'exceeds'
  /** Too long, too large, overflows: an excess that names no bound. */
  | 'too'
  /** Too many, too much: the excess is the noun that follows. */
  | 'too-many'
  /** Less than, at most, <=, within: after must/should, a rule the request breaks. */
  | 'bound'
  /** Must, should, needs to. */
  | 'modal'
  /** Reduce, shorten, decrease, shorter, fewer: the fix asked for is a smaller… */
  | 'shrink'
  /** Requested, contains, received, given, current: the request's side of a pair of figures. */
  | 'asks'
  /** And, or, plus, +. */
  | 'and'
  /** Prepositions that open a phrase after a noun: in, for, from, with, on, at, to. */
  | 'preposition'
  /** Words that end a phrase: but, however, while, which, because, please… */
  | 'break'
  /** The end of a sentence. */
  | 'stop'
  /** `,` and `;`. */
  | 'comma'
  /** `:`. */
  | 'colon'
  | 'number'
  /** The, a, your, is, of, brackets…: read past. */
  | 'filler'
  /** Any other word. */
  | 'word';

const words = (cls: WordClass, list: string): [string, WordClass][] =>
  list
    .trim()
    .split(/\s*\|\s*/)
    .map((phrase) => [phrase, cls]);

/** Every known word and phrase with its class; a phrase of several words wins over its first word. */
export const OVERFLOW_VOCABULARY: ReadonlyMap<string, WordClass> = new Map([
  ...words(
    'subject',
    'prompt | prompts | input | inputs | conversation | message | messages | request | payload | body |' +
      ' token | tokens | history | sequence | transcript | dialogue | chat history',
  ),
  ...words('context', 'context | contexts'),
  ...words(
    'window',
    'context length | context window | context size | context limit | context capacity | context budget |' +
      ' context tokens | n ctx | num ctx | ctx size | max model len | max model length |' +
      ' maximum model length | model length | model max length | model context | max seq len |' +
      ' max sequence length | maximum sequence length | max position embeddings | max context |' +
      ' maximum context | max context length | maximum context length | token limit | tokens limit',
  ),
  ...words(
    'limit',
    'limit | limits | maximum | max | allowed | allowable | permitted | capacity | cap | ceiling |' +
      ' threshold | supported | supports | support | up to | upper bound | allows | accepts | accept |' +
      ' handle | handles',
  ),
  ...words(
    'output',
    'output | outputs | completion | completions | generation | generated | response | reply |' +
      ' max tokens | maximum tokens | max new tokens | max completion tokens | max output tokens |' +
      ' maximum output tokens | max output | maximum output | new tokens | max tokens to sample |' +
      ' max gen len | num predict | n predict | output tokens | completion tokens | response tokens |' +
      ' generated tokens | predict | response body',
  ),
  ...words(
    'other',
    'image | images | picture | photo | audio | video | file | files | filename | pdf | page | pages |' +
      ' document | documents | attachment | attachments | upload | uploads | media | pixel | pixels |' +
      ' dimension | dimensions | header | headers | cookie | cookies | url | uri | path | name | description |' +
      ' title | label | metadata | schema | tool | tools | function | functions | stop | temperature | penalty |' +
      ' seed | logprobs | string | array | integer | items | rate | frequency | concurrency | requests | calls |' +
      ' memory | ram | vram | gpu | disk | device | time | timeout | deadline | duration | seconds | latency |' +
      ' budget | cost | spend | credit | credits | balance | price | iterations | steps | retries | attempts |' +
      ' recursion | depth | stack | buffer | batch | bucket | queue | slot | slots | organization | org |' +
      ' account | plan | tier | team | project | key | service | cache | caching | thinking | safety |' +
      ' moderation | policy | filter',
  ),
  ...words(
    'measure',
    'length | lengths | size | sizes | count | counts | number | total | amount | sum | bytes | byte |' +
      ' characters | chars | mb | kb | gb | mib | kib | gib | tb | words',
  ),
  ...words(
    'exceeds',
    'exceed | exceeds | exceeded | exceeding | exceedes | surpass | surpasses | surpassed | surpassing |' +
      ' greater than | longer than | larger than | bigger than | more than | higher than | above | over |' +
      ' beyond | > | >= | reached | reaches | out of room | out of space | no room | not fit | cannot fit',
  ),
  ...words(
    'too',
    'too long | too large | too big | too lengthy | overflow | overflows | overflowed | overflowing |' +
      ' oversized | oversize',
  ),
  ...words('too-many', 'too many | too much'),
  ...words(
    'bound',
    'less than | fewer than | lower than | smaller than | at most | no more than | no greater than |' +
      ' not more than | <= | < | within | [ | between | in range | in the range',
  ),
  ...words('modal', 'must | should | needs to | need to | has to | have to | shall | required to'),
  ...words(
    'shrink',
    'reduce | reducing | shorten | shortening | decrease | decreasing | trim | shrink | cut down | compress |' +
      ' shorter | smaller | fewer',
  ),
  ...words(
    'asks',
    'requested | requesting | contains | contain | containing | has | have | had | received | given | got |' +
      ' resulted | results | current | actual | keep | sent | passed',
  ),
  ...words('and', 'and | or | plus | +'),
  ...words('preposition', 'in | for | from | with | on | at | to | into | per'),
  ...words(
    'break',
    'but | however | while | whereas | which | because | when | if | so | please | try | then | since |' +
      ' where | that | consider | make sure | instead | took | taking | takes | take | lasted | waited',
  ),
  // Names of error classes and fields, not the request's size: "400 Bad Request", `invalid_request_error`.
  ...words('word', 'bad request | invalid request | request error | request id | requestid'),
  ...words(
    'filler',
    'the | a | an | your | my | this | these | those | its | their | our | it | you | we | i | is | are |' +
      ' was | were | be | been | being | would | will | could | can | cannot | not | does | do | did | may |' +
      ' might | of | all | any | some | equal | ( | ) | ] | = | s | t | about | at least | only',
  ),
]);

/** Window names that say "overflow" on sight when nothing in their sentence is about the output or another thing. */
export const WINDOW_NAMES: ReadonlySet<string> = new Set([
  'maximum context length',
  'max context length',
  'context window',
  'token limit',
  'tokens limit',
]);

/**
 * The same sentence in Chinese (DashScope, Zhipu, Moonshot and the gateways in front of them answer in it):
 * a subject, then within a few characters a word of excess. No space separates the words, so it is read
 * off the characters.
 */
export const CJK_OVERFLOW =
  /(?:输入|提示词|提示|上下文|请求|消息|对话|prompt|token)[^\n。，,；;]{0,12}?(?:超过|超出|超长|过长|太长|超限)/i;
