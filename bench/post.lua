-- wrk script: POST the create scenario's body with the key.
wrk.method = "POST"
wrk.body = '{"name":"bench pet","categoryId":1,"status":"available"}'
wrk.headers["Content-Type"] = "application/json"
