-- Survey database schema (PostgreSQL). Sample corpus file.
CREATE TABLE site (
    site_id     serial PRIMARY KEY,
    name        text NOT NULL UNIQUE,
    latitude    numeric(8, 5) NOT NULL,
    longitude   numeric(8, 5) NOT NULL
);

CREATE TABLE survey (
    survey_id   serial PRIMARY KEY,
    site_id     integer NOT NULL REFERENCES site (site_id),
    surveyed_on date NOT NULL,
    observer    text NOT NULL,
    low_tide_at timestamptz
);

CREATE TABLE quadrat_count (
    survey_id   integer NOT NULL REFERENCES survey (survey_id) ON DELETE CASCADE,
    quadrat_no  smallint NOT NULL CHECK (quadrat_no > 0),
    species     text NOT NULL,
    count       integer NOT NULL CHECK (count >= 0),
    PRIMARY KEY (survey_id, quadrat_no, species)
);

-- Density per square metre by site and species (quadrats are 0.25 m²).
CREATE VIEW density AS
SELECT s.name AS site, q.species,
       sum(q.count) / (count(DISTINCT q.quadrat_no) * 0.25) AS per_m2
FROM quadrat_count q
JOIN survey v USING (survey_id)
JOIN site s USING (site_id)
GROUP BY s.name, q.species;
