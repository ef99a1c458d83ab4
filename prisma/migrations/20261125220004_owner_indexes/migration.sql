-- Chunked files and file results are listed per owner (POST /chunked-files/query,
-- POST /file-results/query): the owner's rows, newest first by default order of id.
CREATE INDEX chunked_file_created_user_id_idx ON chunked_file (created_user_id, creation_date);
CREATE INDEX file_result_token_id_idx ON file_result (token_id);
