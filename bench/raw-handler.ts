// The baseline the REST layer is compared with: a minimal Express + pg handler for the same reads,
// no authentication, no GraphQL, no Prisma.
import express from "express";
import pg from "pg";

const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 20 });
const app = express();
app.use(express.json());

app.get("/raw/engagements/:id", async (req, res) => {
  const { rows } = await pool.query("SELECT * FROM engagement WHERE id = $1", [req.params.id]);
  if (!rows[0]) {
    res.status(404).json({ status: 404 });
    return;
  }
  res.json(rows[0]);
});

app.post("/raw/engagements/query", async (req, res) => {
  const size = Number(req.query.size ?? 20);
  const page = Number(req.query.page ?? 0);
  const where = "organization_id = $1 AND lower(name) LIKE $2";
  const params = [req.body.organizationId, `${String(req.body.name.$iprefix).toLowerCase()}%`];
  const [count, rows] = await Promise.all([
    pool.query(`SELECT count(*)::int AS n FROM engagement WHERE ${where}`, params),
    pool.query(`SELECT * FROM engagement WHERE ${where} ORDER BY id LIMIT ${size} OFFSET ${page * size}`, params),
  ]);
  res.json({ content: rows.rows, totalElements: count.rows[0].n, number: page, size });
});

app.listen(Number(process.env.PORT), process.env.HOST ?? "127.0.0.1", () => process.stdout.write("raw ready\n"));
