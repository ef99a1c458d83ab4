/**
 * The words of an account's name reduced to the concepts the rules (rules.ts) speak of: lower case,
 * abbreviations spelt out, multi-word terms joined into one concept ("cost of sales" -> cogs), plurals
 * made singular and synonyms folded ("debtors" -> receivable). docs/account-groupings.md lists them.
 */

/**
 * Multi-word terms, tried in this order on the normalised text before it is split into words, so that
 * "sales tax" is never read as sales, "common stock" never as inventory and "bank charges" never as
 * a bank account. Each becomes one concept (or, for a few, other words the rules read).
 */
const PHRASES: ReadonlyArray<[RegExp, string]> = [
  [/\bowners? (pay|draws?|drawings?)( and personal expenses?)?\b/g, " drawings "],
  [/\b(personal expenses?|distributions? to (owners?|partners?|members?)|partner draws?)\b/g, " drawings "],
  [/\b(funds|capital) introduced\b|\bowners? (investment|contributions?|equity|capital)\b|\b(partners?|members?) (capital|equity)\b/g, " ownercapital "],
  [/\bopening (balance|bal) equity\b/g, " openingequity "],
  [/\b(retained (earnings|profits?)|profit (and|&) loss account|p (and|&) l account|accumulated (profits?|surplus|deficit)|undistributed reserves?|earned surplus)\b/g, " retainedearnings "],
  [/\b(common|capital|ordinary|voting) (stock|shares?)\b|\bshare capital\b|\bcapital stock\b/g, " sharecapital "],
  [/\b(preferred|preference) (stock|shares?)\b/g, " preferredshares "],
  [/\b(additional )?paid[- ]?in capital\b|\bshare premium\b|\bcapital surplus\b|\bapic\b/g, " sharepremium "],
  [/\btreasury (stock|shares?)\b/g, " treasuryshares "],
  [/\b(cost of (goods sold|sales|revenue|goods)|cogs|cos)\b/g, " cogs "],
  [/\b(opening|closing) (stock|inventory)\b|\b(stock|inventory) (adjustments?|movements?|variance)\b|\bchange in (stock|inventory)\b/g, " stockmovement "],
  [/\bwork in (progress|process)\b|\bw ?i ?p\b/g, " wip "],
  [/\bfinished goods\b/g, " finishedgoods "],
  [/\braw materials?\b/g, " rawmaterials "],
  [/\b(sales|use|goods and services|value added|purchase|consumption) tax(es)?\b|\b(vat|gst|hst|pst|qst)\b|\bboard of equalization\b|\b(dept|department) of (revenue|taxation)\b/g, " salestax "],
  [/\b(income|corporation|corporate|federal income|state income|profits?) tax(es)?\b/g, " incometax "],
  [/\bemployers? (n ?i ?c?|national insurance|payroll tax(es)?|social security|medicare)\b/g, " employer payrolltax "],
  [/\b(payroll|employment|employee|withholding|social security|medicare|futa|suta|sui|fica) tax(es)?\b|\b(national insurance|n ?i ?c?|paye|futa|suta|fica|withholdings?)\b|\bstudent loans?\b/g, " payrolltax "],
  [/\b(earnings orders?|attachment of earnings|garnish(ments?|ees?)|401 ?k|403 ?b)\b/g, " deduction "],
  [/\b(ssp|smp|statutory (sick|maternity|paternity) pay)\b/g, " salary "],
  [/\b(medical|health|dental|life) insurance\b|\bstaff welfare\b/g, " benefit "],
  [/\bworkers'?s? comp(ensation)?\b/g, " insurance "],
  [/\bbuilding society\b|\b(current|cheque|check|checking|chequing|savings|deposit|money market|operating) accounts?\b/g, " bank "],
  [/\b(petty cash|cash (on|in) hand|cash receipts|cash float|till float|undeposited funds|payments to deposit|cash in transit)\b/g, " pettycash "],
  [/\bcash (over|short)( and (over|short))?\b|\bover and short\b/g, " cashovershort "],
  [/\bcredit card receipts?\b|\bcard receipts?\b|\bmerchant (receipts|clearing)\b/g, " cardreceipts "],
  [/\b(credit cards?|charge cards?|mastercard|visa|amex|american express|company card)\b/g, " creditcard "],
  [/\b(bank|merchant|card|currency|credit|transaction) (charges?|fees?|commissions?)\b|\bbank service (charges?|fees?)\b/g, " bankcharges "],
  [/\b(expenses? claims?|employee reimbursements?|unpaid expenses?)\b/g, " expenseclaims "],
  [/\b(income|revenue|fees?) (received )?in advance\b|\b(deferred|unearned) (revenue|income)\b/g, " deferredrevenue "],
  [/\bcustomer (deposits?|advances?|prepayments?)\b|\bdeposits? (from|received from) customers?\b/g, " customerdeposit "],
  [/\bhire purchase\b|\bh ?p (interest|loans?|creditors?)\b/g, " hirepurchase $1 "],
  [/\bcurrent portion\b|\bcurrent maturit(y|ies)\b/g, " currentportion "],
  [/\b(non[- ]?current|long[- ]?term|longterm)\b/g, " longterm "],
  [/\bshort[- ]?term\b/g, " shortterm "],
  [/\b(bad|doubtful|uncollectible|irrecoverable) (debts?|accounts?)\b|\bdebt write[- ]?offs?\b/g, " baddebt "],
  [/\b(accum|acc|accumulated) (depr|dep|depn|depreciation)\b/g, " accumulated depreciation "],
  [/\b(accum|acc|accumulated) (amort|amortiz|amortis)\w*\b/g, " accumulated amortization "],
  [/\b(sales|purchases?) (returns?|allowances?)\b/g, " $1 return "],
  [/\b(discounts?|rebates?) (allowed|given)\b/g, " sale discount "],
  [/\b(discounts?|rebates?) (taken|received|earned)\b|\bpurchase discounts?\b/g, " purchase discount "],
  [/\b(sales?|disposal) of (fixed )?assets?\b|\b(gain|loss|profit)s? on (the )?(sale|disposal)\b/g, " assetdisposal "],
  [/\bbank revaluations?\b|\b(foreign )?(exchange|currency|forex|fx) (gains?|loss(es)?|differences?|revaluations?)\b|\b(unrealised|unrealized|realised|realized) (currency|exchange|fx) (gains?|loss(es)?)\b/g, " fxresult "],
  [/\binsurance (claims?|recover(y|ies)|proceeds)\b/g, " insuranceclaim "],
  [/\b(late payments?|finance charges? income|interest charged)\b/g, " latepayment "],
  [/\bcar hire\b|\bcar rental\b/g, " travel "],
  [/\bscale charges?\b/g, " fuel "],
  [/\b(legal|professional|consulting|consultancy|accounting|accountancy|bookkeeping|audit|advisory) (and \w+ )?services\b/g, " $1 $2 fee "],
  [/\b(cleaning|janitorial) services\b/g, " cleaning "],
  [/\bsub[- ]?contract(ors?|ing)?\b|\bcontractors?\b|\boutside services\b|\bcontract labou?r\b/g, " subcontractor "],
  [/\bdirect (wages|labou?r|salaries|payroll)\b|\bproductive labou?r\b|\bcost of labou?r\b/g, " directlabour "],
  [/\bdirect (costs?|expenses?)\b/g, " directcost "],
  [/\b(import|customs|excise) dut(y|ies)\b/g, " freight "],
  [/\b(intellectual property|trade ?marks?|patents?|copyrights?)\b/g, " patent "],
  [/\bm ?\/ ?cy\b/g, " machinery "],
  [/\b(organi[sz]ation|org|formation|start[- ]?up|preliminary) (costs?|expenses?)\b/g, " intangible "],
  [/\b(fixed|tangible) assets?\b|\bproperty,? plant (and|&) equipment\b|\bppe\b/g, " fixedasset "],
  [/\b(right[- ]of[- ]use)\b/g, " rightofuse "],
  [/\b(suspense|mispostings?|clearing|rounding|historical adjustments?|tracking transfers?|opening balances? (control|clearing)|ask my accountant|to be (allocated|classified))\b/g, " noclass "],
];

/** The concepts the phrases make: kept as they are (not made singular). */
const PHRASE_CONCEPTS = new Set(PHRASES.flatMap(([, replacement]) => replacement.split(" ").filter((w) => w && !w.startsWith("$"))));

/** Single words folded onto one concept (after plurals are made singular). */
const SYNONYMS: Readonly<Record<string, string>> = {
  ar: "receivable", debtor: "receivable", receivables: "receivable",
  ap: "payable", creditor: "payable", payables: "payable",
  stock: "inventory", merchandise: "inventory", inventories: "inventory",
  turnover: "sale", sales: "sale", revenue: "income", revenues: "income", earnings: "income",
  earned: "income", earning: "income",
  wage: "salary", salaries: "salary", payroll: "salary", remuneration: "salary", compensation: "salary", pay: "salary", emolument: "salary",
  labor: "labour",
  checking: "bank", cheque: "bank", savings: "bank", saving: "bank",
  motor: "vehicle", automobile: "vehicle", auto: "vehicle", car: "vehicle", truck: "vehicle", van: "vehicle", lorry: "vehicle",
  petrol: "fuel", gasoline: "fuel", diesel: "fuel", mileage: "fuel",
  telephone: "telecom", phone: "telecom", mobile: "telecom", cellphone: "telecom", internet: "telecom", broadband: "telecom",
  telex: "telecom", telegram: "telecom", fax: "telecom", facsimile: "telecom", telecommunication: "telecom", communication: "telecom",
  hosting: "telecom", it: "telecom", web: "telecom", website: "telecom",
  postage: "postage", courier: "postage", delivery: "postage", mailing: "postage", stamp: "postage",
  carriage: "freight", shipping: "freight", transport: "freight", haulage: "freight", distribution: "freight",
  stationery: "printing", print: "printing",
  electricity: "utility", electric: "utility", gas: "utility", power: "utility", light: "utility", heat: "utility", heating: "utility",
  water: "utility", energy: "utility", oil: "utility",
  rental: "rent", hire: "rent", lease: "rent", leasing: "rent", rate: "rent", occupancy: "rent",
  repair: "repair", maintenance: "repair", servicing: "repair", renewal: "repair", upkeep: "repair",
  janitorial: "cleaning", laundry: "cleaning",
  lawyer: "legal", solicitor: "legal", attorney: "legal",
  accountancy: "accounting", audit: "accounting", bookkeeping: "accounting", bookkeeper: "accounting", accountant: "accounting",
  consultancy: "consulting", consultant: "consulting",
  marketing: "advertising", promotion: "advertising", promotional: "advertising", publicity: "advertising", pr: "advertising",
  brochure: "advertising", literature: "advertising", gift: "advertising", sample: "advertising", sponsorship: "advertising",
  travelling: "travel", traveling: "travel", hotel: "travel", accommodation: "travel", airfare: "travel", flight: "travel",
  subsistence: "travel", meal: "travel", entertainment: "travel", taxi: "travel", parking: "travel",
  donation: "donation", charitable: "donation", charity: "donation", contribution: "donation",
  subscription: "subscription", dues: "subscription", membership: "subscription",
  training: "training", recruitment: "training", clothing: "training", uniform: "training", refreshment: "training",
  license: "licence", permit: "licence",
  penalty: "penalty", fine: "penalty", settlement: "penalty",
  misc: "general", miscellaneous: "general", sundry: "general", sundries: "general", other: "general", various: "general",
  uncategorised: "uncategorized",
  commission: "commission",
  pension: "pension", superannuation: "pension", retirement: "pension",
  benefit: "benefit", welfare: "benefit",
  depr: "depreciation", depn: "depreciation",
  amortisation: "amortization", amort: "amortization",
  accrued: "accrual", accrual: "accrual", accruals: "accrual",
  prepayment: "prepaid", prepaid: "prepaid",
  deposit: "deposit",
  loan: "loan", borrowing: "loan", mortgage: "loan", debt: "loan", debenture: "loan",
  note: "note",
  overdraft: "overdraft",
  freehold: "property", leasehold: "property", building: "property", premise: "premises", improvement: "property",
  machinery: "equipment", plant: "equipment", machine: "equipment", tool: "equipment",
  fixture: "furniture", fitting: "furniture",
  computer: "computer", hardware: "computer",
  goodwill: "goodwill", intangible: "intangible",
  investment: "investment", security: "investment",
  dividend: "dividend",
  interest: "interest",
  royalty: "royalty",
  service: "service", fee: "fee",
  purchase: "purchase", purchased: "purchase", material: "material", supply: "supply", consumable: "supply", book: "printing",
  packaging: "material",
  expense: "expense", expenditure: "expense", exp: "expense", overhead: "expense", spend: "expense",
  cost: "cost", charge: "charge",
  liability: "liability", obligation: "liability",
  asset: "asset", equity: "equity", capital: "capital", reserve: "reserve",
  received: "received", receipt: "received", billed: "billed", billable: "billed", markup: "markup",
  refund: "return", allowance: "allowance", discount: "discount", return: "return",
  provision: "provision", write: "writeoff", writeoff: "writeoff", impairment: "impairment",
  employee: "employee", staff: "employee", director: "related", officer: "related", shareholder: "related", intercompany: "related",
  related: "related", affiliate: "related", partner: "related", member: "related",
  advance: "advance", paid: "paid", payment: "paid", payable: "payable", receivable: "receivable",
  job: "job", project: "job", contract: "job",
  warranty: "warranty", deferred: "deferred", tax: "tax", taxes: "tax", duty: "tax",
};

/** Words that say nothing about the class or group of an account. */
const STOPWORDS = new Set(["a", "an", "and", "the", "of", "for", "on", "in", "to", "at", "by", "with", "from", "less", "account", "control", "type", "total", "etc", "x", "no", "nr", "code"]);

/** English plural -> singular, enough for account names ("utilities" -> utility, "taxes" -> tax). */
function singular(word: string): string {
  if (word.length > 4 && word.endsWith("ies")) return word.slice(0, -3) + "y";
  if (word.length > 4 && /(x|sh|ch|ss)es$/.test(word)) return word.slice(0, -2);
  if (word.length > 3 && word.endsWith("s") && !/(ss|us|is)$/.test(word)) return word.slice(0, -1);
  return word;
}

/** Lower case; "&" as "and"; dots of abbreviations closed up ("P.A.Y.E." -> paye, "U.K." -> uk). */
function normalise(text: string): string {
  return ` ${text
    .toLowerCase()
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .replace(/[’‘`]/g, "'")
    .replace(/\b(a)\s*\/\s*(r|p)\b/g, "$1$2")
    .replace(/\br\s*&\s*m\b/g, " repair ")
    .replace(/&/g, " and ")
    .replace(/\b([a-z])\.(?=[a-z]\b)/g, "$1")
    .replace(/'s\b|s'(?=\s|$)/g, "s")
    .replace(/'/g, "")
    .replace(/[^a-z0-9/]+/g, " ")} `;
}

/** The concepts an account's text carries (its description, and its number when that has words). */
export function conceptsOf(text: string): Set<string> {
  let normalised = normalise(text);
  for (const [pattern, replacement] of PHRASES) normalised = normalised.replace(pattern, ` ${replacement} `);
  const concepts = new Set<string>();
  for (const raw of normalised.split(/[\s/]+/)) {
    if (!raw || STOPWORDS.has(raw) || /^\d+$/.test(raw)) continue;
    const word = SYNONYMS[raw] ?? (PHRASE_CONCEPTS.has(raw) ? raw : (SYNONYMS[singular(raw)] ?? singular(raw)));
    concepts.add(word);
  }
  return concepts;
}
