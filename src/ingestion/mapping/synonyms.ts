/**
 * Header names seen for each platform field in accounting-package exports, in English, French,
 * German and Spanish (normalised: lower case, no accents, punctuation as spaces, "#"/"n°" as "no").
 * Includes the French FEC names (EcritureNum, EcritureDate, CompteNum, ...) and SAP/DATEV terms.
 * Fields not listed here are matched on their own name only.
 */
export const FIELD_SYNONYMS: Record<string, string[]> = {
  txid: [
    "journal id", "journal no", "journal number", "je no", "je number", "je id", "entry no", "entry number", "entry id",
    "transaction id", "transaction no", "transaction number", "trans no", "trans id", "txn id", "txn no", "document no",
    "document number", "doc no", "voucher", "voucher no", "voucher number", "gl journal id", "journal entry", "journal entry id",
    "journal entry no", "transaction", "batch entry", "reference no", "num", "no",
    // French
    "ecriturenum", "numero d ecriture", "no ecriture", "numero de piece", "no piece", "piece", "numero piece", "pieceref", "numero de transaction",
    // German
    "belegnummer", "beleg nr", "belegnr", "beleg", "buchungsnummer", "buchungs nr", "buchungsnr", "journalnummer",
    // Spanish
    "numero de asiento", "no asiento", "asiento", "numero asiento", "numero de comprobante", "comprobante", "id transaccion", "numero de transaccion",
  ],
  effective_date: [
    "effective date", "date", "posting date", "posted date", "gl date", "transaction date", "txn date", "trans date", "accounting date",
    "journal date", "entry effective date", "document date", "value date", "period date", "je date",
    "ecrituredate", "date", "date comptable", "date d ecriture", "date de l ecriture", "date d effet", "date de comptabilisation", "piecedate",
    "buchungsdatum", "datum", "belegdatum", "wertstellung", "valutadatum",
    "fecha", "fecha contable", "fecha de asiento", "fecha asiento", "fecha de contabilizacion", "fecha valor", "fecha efectiva",
  ],
  entry_date: [
    "entry date", "entered date", "date entered", "created date", "creation date", "date created", "input date", "system date", "created on",
    "entered on", "record date", "recorded date", "date posted",
    "date de saisie", "date de creation", "validdate", "date de validation",
    "erfassungsdatum", "erfasst am", "anlagedatum", "erstellungsdatum", "angelegt am",
    "fecha de entrada", "fecha de registro", "fecha de creacion", "fecha de captura", "fecha registro",
  ],
  account: [
    "account", "account no", "account number", "account code", "account id", "gl account", "gl account no", "gl account number",
    "gl code", "acct", "acct no", "account num", "nominal code", "nominal account", "ledger account", "gl acct", "natural account",
    "comptenum", "compte", "numero de compte", "no compte", "compte general", "compte comptable", "n compte",
    "konto", "kontonummer", "konto nr", "kontonr", "sachkonto", "hauptbuchkonto",
    "cuenta", "numero de cuenta", "codigo de cuenta", "cuenta contable", "no cuenta", "codigo cuenta",
  ],
  account_description: [
    "account description", "account name", "account title", "description of account", "gl account name", "gl account description",
    "account desc", "acct description", "acct name", "nominal name", "account label",
    "comptelib", "libelle du compte", "libelle compte", "intitule du compte", "intitule compte", "nom du compte",
    "kontobezeichnung", "kontoname", "konto bezeichnung", "sachkontobezeichnung",
    "descripcion de la cuenta", "nombre de la cuenta", "nombre cuenta", "descripcion cuenta", "denominacion",
  ],
  account_type: [
    "account type", "account category", "account class", "account classification", "type of account", "acct type",
    "type de compte", "categorie de compte", "classe de compte", "nature du compte",
    "kontoart", "kontotyp", "kontenart", "kontoklasse", "kontenklasse",
    "tipo de cuenta", "clase de cuenta", "categoria de cuenta", "tipo cuenta",
  ],
  debit: [
    "debit", "debits", "debit amount", "dr", "debit amt", "debit value", "dr amount", "debit local", "debit lc", "amount debit",
    "debit", "montant debit", "debit eur",
    "soll", "sollbetrag", "soll betrag", "betrag soll",
    "debe", "debito", "cargo", "importe debe", "cargos",
  ],
  credit: [
    "credit", "credits", "credit amount", "cr", "credit amt", "credit value", "cr amount", "credit local", "credit lc", "amount credit",
    "credit", "montant credit", "credit eur",
    "haben", "habenbetrag", "haben betrag", "betrag haben",
    "haber", "credito", "abono", "importe haber", "abonos",
  ],
  amount: [
    "amount", "net amount", "signed amount", "amount lc", "local amount", "amount local currency", "value", "net", "line amount",
    "amount in local currency", "transaction amount", "functional amount", "base amount",
    "montant", "montant net", "montant signe", "solde mouvement",
    "betrag", "buchungsbetrag", "umsatz", "betrag hauswahrung", "wert",
    "importe", "monto", "valor", "importe neto",
  ],
  memo: [
    "memo", "description", "line description", "narrative", "narration", "comment", "comments", "text", "details", "memo description",
    "trans description", "transaction description", "line memo", "particulars", "explanation", "je description", "line text",
    "ecriturelib", "libelle", "libelle ecriture", "commentaire", "description", "designation",
    "buchungstext", "text", "beschreibung", "verwendungszweck", "bemerkung", "kommentar",
    "concepto", "descripcion", "glosa", "comentario", "detalle", "observaciones",
  ],
  source: [
    "source", "journal", "journal code", "jrnl", "source code", "journal type", "journal name", "ledger", "module", "source journal",
    "transaction type", "type", "entry type", "document type", "je source", "origin",
    "journalcode", "journallib", "code journal", "journal", "type de journal", "origine",
    "journal", "belegart", "quelle", "buchungsart", "herkunft",
    "diario", "origen", "tipo de asiento", "fuente", "tipo de comprobante", "tipo",
  ],
  entered_by: [
    "entered by", "created by", "user", "user id", "user name", "username", "preparer", "prepared by", "posted by", "input by",
    "entry user", "creator", "author", "originator",
    "saisi par", "utilisateur", "cree par", "auteur", "createur",
    "erfasser", "benutzer", "erstellt von", "angelegt von", "erfasst von", "buchender",
    "usuario", "creado por", "introducido por", "registrado por", "capturado por", "elaborado por",
  ],
  approved_by: [
    "approved by", "approver", "authorised by", "authorized by", "reviewed by", "validated by", "approval user", "approved user",
    "approuve par", "valide par", "approbateur", "autorise par",
    "genehmigt von", "freigegeben von", "genehmiger", "freigeber", "gepruft von",
    "aprobado por", "autorizado por", "revisado por", "aprobador",
  ],
  currency: [
    "currency", "currency code", "ccy", "cur", "curr", "transaction currency", "currency id",
    "devise", "idevise", "code devise", "monnaie",
    "wahrung", "waehrung", "wahrungscode", "wkz",
    "moneda", "divisa", "codigo de moneda",
  ],
  line_number: [
    "line", "line no", "line number", "line id", "line num", "seq", "sequence", "sequence no", "line item", "item", "posting line",
    "ligne", "numero de ligne", "no ligne",
    "zeile", "zeilennummer", "position", "buchungszeile", "pos",
    "linea", "numero de linea", "renglon", "no linea",
  ],
  fund_id: ["fund", "fund id", "fund code", "fund no", "fund number", "fund name", "fonds", "code fonds", "fondo", "codigo de fondo"],
};

/**
 * Bare header words that name a field only where the source type has nothing else they could
 * mean: a lone "Description" is the account's description in a chart of accounts or a balance
 * list, but the line's memo in a journal (memo lists the same words, so there it stays memo); a
 * lone "Type" or "Class" is the account type of a chart of accounts. A bare word counts only when
 * no field of the source type claims the header by its synonyms and exactly one field lists it.
 */
export const BARE_SYNONYMS: Record<string, string[]> = {
  account_description: ["description", "descripcion", "beschreibung", "libelle", "designation"],
  account_type: ["type", "typ", "tipo", "category", "categorie", "categoria", "kategorie", "class", "classe", "clase", "klasse", "nature", "art"],
};

/** Header words that point away from a field, e.g. a running "Balance" is not the entry amount. */
export const FIELD_EXCLUSIONS: Record<string, string[]> = {
  amount: ["balance", "solde", "saldo", "total", "running", "quantity", "qty", "rate", "price"],
  debit: ["balance", "total"],
  credit: ["balance", "total", "limit"],
  memo: ["account"],
  effective_date: ["entry", "entered", "created", "creation", "saisie", "erfassung", "registro", "due", "echeance"],
  account: ["description", "name", "title", "libelle", "bezeichnung", "nombre", "descripcion", "type", "intitule"],
  txid: ["line", "date", "account"],
};
