//! The CSV output `SUITE.csv`: one line per [`Record`], parameters flattened into columns.

use super::Record;
use crate::BenchError;
use std::collections::BTreeSet;

/// The fixed leading columns of the CSV file.
pub const COLUMNS: [&str; 9] =
    ["suite", "case", "implementation", "metric", "value", "unit", "baseline", "ratio", "parameters"];

/// Serialises records as CSV: the [`COLUMNS`] (with `parameters` as a JSON object, so the file is
/// self-contained) followed by one `param.NAME` column per parameter name used by any record,
/// sorted by name. Missing values are empty cells; floats are written in full precision.
///
/// # Errors
/// If the CSV writer fails (it writes to memory, so only on a bug).
///
/// ```
/// use collide_benches::report::{Record, csv::to_bytes};
/// let r = Record::new("s", "c", "time", 0.5, "s").param("n", 3).compared_to("peer", 2.0);
/// let text = String::from_utf8(to_bytes(&[r]).unwrap()).unwrap();
/// assert_eq!(
///     text,
///     "suite,case,implementation,metric,value,unit,baseline,ratio,parameters,param.n\n\
///      s,c,collide,time,0.5,s,peer,0.25,\"{\"\"n\"\":3}\",3\n"
/// );
/// ```
pub fn to_bytes(records: &[Record]) -> Result<Vec<u8>, BenchError> {
    let keys: BTreeSet<&str> = records.iter().flat_map(|r| r.parameters.keys().map(String::as_str)).collect();
    let mut writer = ::csv::Writer::from_writer(Vec::new());
    let header: Vec<String> =
        COLUMNS.iter().map(|&c| c.to_owned()).chain(keys.iter().map(|k| format!("param.{k}"))).collect();
    writer.write_record(&header)?;
    for r in records {
        let parameters =
            serde_json::to_string(&r.parameters).expect("a map of JSON values always serialises");
        let mut row = vec![
            r.suite.clone(),
            r.case.clone(),
            r.implementation.clone(),
            r.metric.clone(),
            r.value.to_string(),
            r.unit.clone(),
            r.baseline.clone().unwrap_or_default(),
            r.ratio.map(|x| x.to_string()).unwrap_or_default(),
            parameters,
        ];
        row.extend(keys.iter().map(|k| match r.parameters.get(*k) {
            None => String::new(),
            Some(serde_json::Value::String(s)) => s.clone(),
            Some(v) => v.to_string(),
        }));
        writer.write_record(&row)?;
    }
    writer.into_inner().map_err(|e| BenchError::io("flushing CSV", e.into_error()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    #[test]
    fn well_formed_with_ragged_parameters() {
        let records = vec![
            Record::new("geo", "octa/L1", "triangles", 32.0, "count")
                .param("level", 1)
                .param("family", "octa"),
            Record::new("geo", "foam, small", "time", 1.25e-3, "s")
                .param("size", "small")
                .implementation("trimesh"),
            Record::flag("geo", "octa/L1", "closed", true),
        ];
        let bytes = to_bytes(&records).unwrap();
        let mut reader = ::csv::Reader::from_reader(bytes.as_slice());
        let header: Vec<String> = reader.headers().unwrap().iter().map(str::to_owned).collect();
        assert_eq!(&header[..9], &COLUMNS.map(str::to_owned));
        assert_eq!(&header[9..], ["param.family", "param.level", "param.size"]);
        let rows: Vec<::csv::StringRecord> = reader.records().map(Result::unwrap).collect();
        assert_eq!(rows.len(), 3);
        assert!(rows.iter().all(|r| r.len() == header.len()));
        assert_eq!(rows[0].iter().skip(9).collect::<Vec<_>>(), ["octa", "1", ""]);
        // A comma inside a field is quoted and survives the round trip.
        assert_eq!(&rows[1][1], "foam, small");
        assert_eq!(&rows[1][2], "trimesh");
        assert_eq!(rows[1][4].parse::<f64>().unwrap(), 1.25e-3);
        assert_eq!(&rows[2][4], "1");
        assert_eq!(&rows[2][5], "bool");
        // The parameters column is the JSON object.
        let params: BTreeMap<String, serde_json::Value> = serde_json::from_str(&rows[0][8]).unwrap();
        assert_eq!(params, records[0].parameters);
    }

    #[test]
    fn empty_has_header_only() {
        let text = String::from_utf8(to_bytes(&[]).unwrap()).unwrap();
        assert_eq!(text, format!("{}\n", COLUMNS.join(",")));
    }
}
