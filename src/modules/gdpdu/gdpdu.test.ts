import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import iconv from "iconv-lite";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../../../test/helpers/server.js";
import { awaitJob, clientWithPermissions, createEngagement } from "../../../test/helpers/entities.js";
import { postMultipart } from "../../../test/helpers/multipart.js";
import { zipOf } from "../../../test/helpers/zip.js";

let server: TestServer;

beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => server?.close());

/**
 * A cash-register export as German POS systems write it for a tax audit: receipt headers
 * (semicolon-separated, decimal comma, header line skipped with Range), receipt lines
 * (ISO-8859-1 / ANSI, tab-separated, quoted texts, digit grouping, trailing minus) and the register
 * master data as a fixed-length file. Table files sit in a sub-directory next to index.xml.
 */
function cashRegisterIndex(overrides: { bonkopfUrl?: string } = {}) {
  return `<?xml version="1.0" encoding="ISO-8859-1"?>
<!DOCTYPE DataSet SYSTEM "gdpdu-01-08-2002.dtd">
<DataSet>
  <Version>1.0</Version>
  <DataSupplier><Name>Bäckerei Müller GmbH</Name><Location>München</Location><Comment>Kassendaten 2024</Comment></DataSupplier>
  <Media>
    <Name>Kassendaten</Name>
    <Table>
      <URL>${overrides.bonkopfUrl ?? "daten/bonkopf.csv"}</URL>
      <Name>Bonkopf</Name>
      <Description>Kopfdaten je Bon</Description>
      <UTF8/>
      <DecimalSymbol>,</DecimalSymbol>
      <DigitGroupingSymbol>.</DigitGroupingSymbol>
      <Range><From>2</From></Range>
      <VariableLength>
        <ColumnDelimiter>;</ColumnDelimiter>
        <RecordDelimiter>&#13;&#10;</RecordDelimiter>
        <TextEncapsulator>"</TextEncapsulator>
        <VariablePrimaryKey><Name>BON_ID</Name><Numeric/></VariablePrimaryKey>
        <VariableColumn><Name>BON_DATUM</Name><Date><Format>DD.MM.YYYY</Format></Date></VariableColumn>
        <VariableColumn><Name>BON_UHRZEIT</Name><AlphaNumeric/></VariableColumn>
        <VariableColumn><Name>UMSATZ_BRUTTO</Name><Numeric><Accuracy>2</Accuracy></Numeric></VariableColumn>
        <VariableColumn><Name>BON_TEXT</Name><AlphaNumeric/></VariableColumn>
      </VariableLength>
    </Table>
    <Table>
      <URL>daten/bonpos.txt</URL>
      <Name>Bonpositionen</Name>
      <ANSI/>
      <DecimalSymbol>,</DecimalSymbol>
      <DigitGroupingSymbol>.</DigitGroupingSymbol>
      <VariableLength>
        <ColumnDelimiter>&#9;</ColumnDelimiter>
        <TextEncapsulator>"</TextEncapsulator>
        <VariablePrimaryKey><Name>BON_ID</Name><Numeric/></VariablePrimaryKey>
        <VariablePrimaryKey><Name>POS_ZEILE</Name><Numeric/></VariablePrimaryKey>
        <VariableColumn><Name>ARTIKELTEXT</Name><AlphaNumeric/></VariableColumn>
        <VariableColumn><Name>MENGE</Name><Numeric><Accuracy>3</Accuracy></Numeric></VariableColumn>
        <VariableColumn><Name>BETRAG</Name><Numeric><Accuracy>2</Accuracy></Numeric></VariableColumn>
        <VariableColumn><Name>STORNO</Name><AlphaNumeric/><Map><From>J</From><To>true</To></Map><Map><From>N</From><To>false</To></Map></VariableColumn>
        <ForeignKey><Name>BON_ID</Name><References>Bonkopf</References></ForeignKey>
      </VariableLength>
    </Table>
    <Table>
      <URL>daten/kassen.dat</URL>
      <Name>Kassen</Name>
      <ANSI/>
      <FixedLength>
        <Length>28</Length>
        <FixedPrimaryKey><Name>KASSE_ID</Name><AlphaNumeric/><FixedRange><From>1</From><Length>4</Length></FixedRange></FixedPrimaryKey>
        <FixedColumn><Name>STANDORT</Name><AlphaNumeric/><FixedRange><From>5</From><To>16</To></FixedRange></FixedColumn>
        <FixedColumn><Name>IN_BETRIEB_SEIT</Name><Date><Format>YYYYMMDD</Format></Date><FixedRange><From>17</From><Length>8</Length></FixedRange></FixedColumn>
        <FixedColumn><Name>WECHSELGELD</Name><Numeric><ImpliedAccuracy>2</ImpliedAccuracy></Numeric><FixedRange><From>25</From><Length>4</Length></FixedRange></FixedColumn>
      </FixedLength>
    </Table>
  </Media>
</DataSet>`;
}

const bonkopf = 'BON_ID;BON_DATUM;BON_UHRZEIT;UMSATZ_BRUTTO;BON_TEXT\r\n1;02.01.2024;07:15;1.234,50;"Frühstück; Tisch 4"\r\n2;02.01.2024;07:20;3,20;Brötchen\r\n3;03.01.2024;12:01;-0,80;"Storno ""Brezel"""\r\n';
const bonpos = iconv.encode("1\t1\t\"Kaffee groß\"\t1,000\t3,50\tN\r\n1\t2\tMohnbrötchen\t12,000\t1.231,00\tN\r\n3\t1\tBrezel\t1,000\t0,80-\tJ\r\n", "windows-1252");
const kassen = iconv.encode("K001Filiale Süd 202301150500K002Markt       202305010000", "windows-1252");

async function cashRegisterArchive(files: Record<string, string | Buffer> = {}) {
  return zipOf({ "index.xml": iconv.encode(cashRegisterIndex(), "latin1"), "gdpdu-01-08-2002.dtd": "<!-- DTD -->", "daten/bonkopf.csv": bonkopf, "daten/bonpos.txt": bonpos, "daten/kassen.dat": kassen, ...files });
}

async function importArchive(engagementId: string, archive: Buffer, filename = "kasse-2024.zip"): Promise<string> {
  const response = await postMultipart(server.url, server.token, "/file-manager/import", [
    { name: "fileManagerFile", json: { engagementId } },
    { name: "file", filename, contentType: "application/zip", data: archive },
  ]);
  expect(response.status).toBe(200);
  return response.body.id;
}

async function text(fileId: string): Promise<string> {
  const response = await fetch(`${server.url}/api/v1/file-manager/${fileId}/export`, { headers: { authorization: `Bearer ${server.token}` } });
  return response.text();
}

async function entitiesOf(engagementId: string) {
  return (await server.api.post("/file-manager/query?size=100", { engagementId })).body.content as Array<{ id: string; type: string; name: string; parentFileManagerEntityId?: string }>;
}

function staged(): string[] {
  const dir = join(server.dataDir, "files", "gdpdu");
  return existsSync(dir) ? readdirSync(dir, { recursive: true }).map(String) : [];
}

describe("GDPdU unpack", () => {
  it("unpacks a cash-register export into a directory with one UTF-8 CSV per table, recorded on the unpack job", async () => {
    const engagement = await createEngagement(server.api, "gdpdu");
    const parent = await server.api.post("/file-manager", { engagementId: engagement.id, name: "Betriebsprüfung" });
    const archiveId = await importArchive(engagement.id, await cashRegisterArchive());
    const started = await server.api.post("/file-manager/transform/gdpdu-unpack", { engagementId: engagement.id, fileManagerFileId: archiveId, parentFileManagerEntityId: parent.body.id });
    expect(started.status).toBe(200);
    expect(started.body).toMatchObject({ type: "GDPDU_UNPACK_JOB", entityType: "GDPDU_UNPACK_JOB", status: "IN_PROGRESS" });
    const running = await server.api.get(`/gdpdu-unpack-jobs/${started.body.entityId}`);
    expect(running.status).toBe(200);
    expect(running.body).toMatchObject({ engagementId: engagement.id, fileManagerFileId: archiveId, name: "kasse-2024" });

    expect(await awaitJob(server.api, started.body.id)).toMatchObject({ status: "COMPLETE" });
    const job = (await server.api.get(`/gdpdu-unpack-jobs/${started.body.entityId}`)).body;
    expect(job).toMatchObject({ status: "UNPACK_COMPLETE", name: "kasse-2024", parentFileManagerEntityId: parent.body.id });
    expect(job).not.toHaveProperty("error");
    expect(job.fileManagerDirectoryIds).toEqual([job.directoryId]);
    expect(job.tables.map((t: { name: string; rowCount: number; columnCount: number }) => [t.name, t.rowCount, t.columnCount])).toEqual([
      ["Bonkopf", 3, 5],
      ["Bonpositionen", 3, 6],
      ["Kassen", 2, 4],
    ]);
    expect(job.fileManagerFileIds).toEqual(job.tables.map((t: { fileManagerFileId: string }) => t.fileManagerFileId));

    const directory = (await server.api.get(`/file-manager/${job.directoryId}`)).body;
    expect(directory).toMatchObject({ type: "DIRECTORY", name: "kasse-2024", parentFileManagerEntityId: parent.body.id });
    const children = (await server.api.post("/file-manager/query", { parentFileManagerEntityId: job.directoryId })).body.content;
    expect(children.map((c: { originalName: string }) => c.originalName).sort()).toEqual(["Bonkopf.csv", "Bonpositionen.csv", "Kassen.csv"]);

    const [head, lines, registers] = job.tables.map((t: { fileManagerFileId: string }) => t.fileManagerFileId);
    expect(await text(head)).toBe(
      ["BON_ID,BON_DATUM,BON_UHRZEIT,UMSATZ_BRUTTO,BON_TEXT", '1,2024-01-02,07:15,1234.50,Frühstück; Tisch 4', "2,2024-01-02,07:20,3.20,Brötchen", '3,2024-01-03,12:01,-0.80,"Storno ""Brezel"""', ""].join("\r\n"),
    );
    expect(await text(lines)).toBe(
      ["BON_ID,POS_ZEILE,ARTIKELTEXT,MENGE,BETRAG,STORNO", "1,1,Kaffee groß,1.000,3.50,false", "1,2,Mohnbrötchen,12.000,1231.00,false", "3,1,Brezel,1.000,-0.80,true", ""].join("\r\n"),
    );
    expect(await text(registers)).toBe(["KASSE_ID,STANDORT,IN_BETRIEB_SEIT,WECHSELGELD", "K001,Filiale Süd,2023-01-15,5.00", "K002,Markt,2023-05-01,0.00", ""].join("\r\n"));
    expect(staged()).toEqual([]);

    const query = await server.api.post("/gdpdu-unpack-jobs/query", { $and: [{ engagementId: engagement.id }, { status: "UNPACK_COMPLETE" }] });
    expect(query.body.content.map((j: { id: string }) => j.id)).toEqual([started.body.entityId]);
  });

  async function expectFailure(archive: Buffer, message: RegExp) {
    const engagement = await createEngagement(server.api, "broken gdpdu");
    const archiveId = await importArchive(engagement.id, archive);
    const started = await server.api.post("/file-manager/transform/gdpdu-unpack", { engagementId: engagement.id, fileManagerFileId: archiveId, name: "unpacked" });
    expect(started.status).toBe(200);
    const failed = await awaitJob(server.api, started.body.id);
    expect(failed.status).toBe("ERROR");
    expect(failed.error).toMatch(message);
    const job = (await server.api.get(`/gdpdu-unpack-jobs/${started.body.entityId}`)).body;
    expect(job).toMatchObject({ status: "FAILED", fileManagerFileIds: [], fileManagerDirectoryIds: [] });
    expect(job.error).toBe(failed.error);
    // Nothing half-made: the engagement still holds only the archive, and no staged table is left.
    expect((await entitiesOf(engagement.id)).map((e) => e.id)).toEqual([archiveId]);
    expect(staged()).toEqual([]);
  }

  it("fails a corrupt archive cleanly", async () => {
    const zip = await cashRegisterArchive();
    await expectFailure(Buffer.concat([zip.subarray(0, 200), Buffer.alloc(100, 7)]), /^The file is not a readable zip archive/);
  });

  it("fails an archive without index.xml", async () => {
    await expectFailure(await zipOf({ "daten/bonkopf.csv": bonkopf }), /has no index\.xml/);
  });

  it("fails an index.xml that is not well-formed", async () => {
    await expectFailure(await zipOf({ "index.xml": "<DataSet><Version>1.0</Version><Media></DataSet>" }), /^index\.xml is not well-formed XML \(line 1\)/);
  });

  it("fails when a table's file is missing, after other tables were already converted", async () => {
    await expectFailure(await zipOf({ "index.xml": iconv.encode(cashRegisterIndex(), "latin1"), "daten/bonkopf.csv": bonkopf, "daten/bonpos.txt": bonpos }), /Table "Kassen": its file daten\/kassen\.dat is not in the archive/);
  });

  it("fails a record whose field count does not match the declared columns, naming table and record", async () => {
    await expectFailure(await cashRegisterArchive({ "daten/bonkopf.csv": bonkopf + "4;04.01.2024;08:00\r\n" }), /Table "Bonkopf" \(daten\/bonkopf\.csv\), record 5: 3 field\(s\) where index\.xml declares 5 column\(s\)/);
  });

  it("refuses a zip bomb from the archive's directory, before inflating it", async () => {
    // 64 MiB of one byte deflates about 1,000:1; real exports compress far less.
    await expectFailure(await cashRegisterArchive({ "daten/bonkopf.csv": Buffer.alloc(64 * 1024 * 1024, 0x30) }), /^daten\/bonkopf\.csv inflates \d+ times .* refused as a zip bomb$/);
  });

  it("refuses entries named with .. or an absolute path, and an index.xml nested too deep", async () => {
    // yazl will not write such names: an entry is written under a same-length name and renamed in the bytes.
    const rename = (zip: Buffer, from: string, to: string) => Buffer.from(zip.toString("latin1").split(from).join(to), "latin1");
    const archive = await cashRegisterArchive({ "zz/evil.csv": "x" });
    await expectFailure(rename(archive, "zz/evil.csv", "../evil.csv"), /^The file is not a readable zip archive: invalid relative path: \.\.\/evil\.csv/);
    await expectFailure(rename(archive, "zz/evil.csv", "/z/evil.csv"), /^The file is not a readable zip archive: absolute path: \/z\/evil\.csv/);
    const deep = `<?xml version="1.0"?><DataSet><Media>${"<a>".repeat(100_000)}${"</a>".repeat(100_000)}</Media></DataSet>`;
    await expectFailure(await zipOf({ "index.xml": deep }), /^index\.xml nests elements more than 64 deep$/);
  });

  it("validates the request", async () => {
    const engagement = await createEngagement(server.api, "gdpdu request");
    const directory = await server.api.post("/file-manager", { engagementId: engagement.id, name: "d" });
    const unknownFile = await server.api.post("/file-manager/transform/gdpdu-unpack", { engagementId: engagement.id, fileManagerFileId: "0123456789abcdef01234567" });
    expect(unknownFile.status).toBe(400);
    expect(unknownFile.body.problems[0].identifier).toBe("fileManagerFileId");
    const notAFile = await server.api.post("/file-manager/transform/gdpdu-unpack", { engagementId: engagement.id, fileManagerFileId: directory.body.id });
    expect(notAFile.status).toBe(400);
    expect((await server.api.get("/gdpdu-unpack-jobs/0123456789abcdef01234567")).status).toBe(404);
  });

  it("needs api.file-manager.write to start, and api.file-manager.read to read its async result, unpack job and files", async () => {
    const engagement = await createEngagement(server.api, "gdpdu permissions");
    const archiveId = await importArchive(engagement.id, await cashRegisterArchive());
    const body = { engagementId: engagement.id, fileManagerFileId: archiveId };

    const reader = await clientWithPermissions(server.api, ["api.file-manager.read", "api.engagements.read"], "gdpdu reader");
    const denied = await reader.post("/file-manager/transform/gdpdu-unpack", body);
    expect(denied.status).toBe(403);
    expect(denied.body.problems[0].values).toEqual(["api.file-manager.write"]);
    // Refused before anything was made: no unpack job, nothing new in the engagement.
    expect((await server.api.post("/gdpdu-unpack-jobs/query", { engagementId: engagement.id })).body.content).toEqual([]);
    expect((await entitiesOf(engagement.id)).map((e) => e.id)).toEqual([archiveId]);

    const writer = await clientWithPermissions(server.api, ["api.file-manager.write"], "gdpdu writer");
    const started = await writer.post("/file-manager/transform/gdpdu-unpack", body);
    expect(started.status, JSON.stringify(started.body)).toBe(200);
    expect(started.body).toMatchObject({ type: "GDPDU_UNPACK_JOB", entityType: "GDPDU_UNPACK_JOB" });
    expect(await awaitJob(server.api, started.body.id)).toMatchObject({ status: "COMPLETE" });
    const job = (await server.api.get(`/gdpdu-unpack-jobs/${started.body.entityId}`)).body;
    expect(job.fileManagerFileIds).toHaveLength(3);

    // The writer started the unpack but may not read its result or its outputs.
    const result = await writer.get(`/async-results/${started.body.id}`);
    expect(result.status).toBe(403);
    expect(result.body.problems[0].values).toEqual(["api.file-manager.read"]);
    expect((await writer.post("/async-results/query", { id: { $in: [started.body.id] } })).body.content).toEqual([]);
    const unpackJob = await writer.get(`/gdpdu-unpack-jobs/${started.body.entityId}`);
    expect(unpackJob.status).toBe(403);
    expect(unpackJob.body.problems[0].values).toEqual(["api.file-manager.read"]);
    expect((await writer.post("/gdpdu-unpack-jobs/query", { engagementId: engagement.id })).status).toBe(403);
    expect((await writer.get(`/file-manager/${job.directoryId}`)).status).toBe(403);
    expect((await writer.get(`/file-manager/${job.fileManagerFileIds[0]}`)).status).toBe(403);
    expect((await writer.get(`/file-manager/${job.fileManagerFileIds[0]}/export`)).status).toBe(403);
    const infos = await clientWithPermissions(server.api, ["api.file-infos.read", "api.engagements.read"], "gdpdu infos");
    expect((await infos.get(`/async-results/${started.body.id}`)).status).toBe(403);
    expect((await infos.get(`/gdpdu-unpack-jobs/${started.body.entityId}`)).status).toBe(403);

    // The read permission is what it takes (not being the starting token).
    const bytes = await reader.get(`/file-manager/${job.tables[2].fileManagerFileId}/export`);
    expect(bytes.status).toBe(200);
    expect(bytes.body).toBe(["KASSE_ID,STANDORT,IN_BETRIEB_SEIT,WECHSELGELD", "K001,Filiale Süd,2023-01-15,5.00", "K002,Markt,2023-05-01,0.00", ""].join("\r\n"));
    expect((await reader.get(`/async-results/${started.body.id}`)).body).toMatchObject({ id: started.body.id, status: "COMPLETE", entityId: started.body.entityId });
    expect((await reader.get(`/gdpdu-unpack-jobs/${started.body.entityId}`)).body).toMatchObject({ status: "UNPACK_COMPLETE", fileManagerFileIds: job.fileManagerFileIds });
    expect((await reader.post("/gdpdu-unpack-jobs/query", { engagementId: engagement.id })).body.content.map((j: { id: string }) => j.id)).toEqual([started.body.entityId]);
  });
});
